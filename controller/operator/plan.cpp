#include "gpupool/operator/plan.h"

#include "cycle_state.h"

namespace gpupool::op {

Plan PlanCycle(const ClusterView& view, const PlanOptions& options) {
  internal::CycleState state(view, options);
  internal::IndexCluster(state);
  internal::BuildJobRecords(state);
  internal::AdvanceLifecycles(state);
  const engine::Snapshot snapshot = internal::BuildSnapshot(state);
  engine::Decisions decisions = engine::Decide(snapshot, options.engine);
  internal::ApplyDecisions(state, decisions);
  internal::PlanPods(state);
  internal::PlanJobStatuses(state);
  internal::PlanUsageStatuses(state, decisions);
  state.plan.decisions = std::move(decisions);
  return std::move(state.plan);
}

}  // namespace gpupool::op
