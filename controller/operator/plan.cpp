#include "gpupool/operator/plan.h"

#include "cycle_state.h"
#include "gpupool/json/parse.h"

namespace gpupool::op {
namespace {

template <typename DecideFn>
Plan RunCycle(const ClusterView& view, const PlanOptions& options, DecideFn decide) {
  internal::CycleState state(view, options);
  internal::IndexCluster(state);
  internal::BuildJobRecords(state);
  internal::AdvanceLifecycles(state);
  internal::PlanUtilization(state);
  const engine::Snapshot snapshot = internal::BuildSnapshot(state);
  engine::Decisions decisions = decide(snapshot);
  internal::ApplyDecisions(state, decisions);
  internal::PlanReservations(state);
  internal::PlanPods(state);
  internal::PlanJobStatuses(state);
  internal::PlanUsageStatuses(state, decisions);
  state.plan.decisions = std::move(decisions);
  return std::move(state.plan);
}

}  // namespace

Json PodCreate::Pod() const { return json::ParseJson(body); }

Plan PlanCycle(const ClusterView& view, const PlanOptions& options) {
  return RunCycle(view, options, [&](const engine::Snapshot& snapshot) {
    return engine::Decide(snapshot, options.engine);
  });
}

Plan PlanCycle(const ClusterView& view, const PlanOptions& options, engine::LiveEngine& live) {
  return RunCycle(view, options,
                  [&](const engine::Snapshot& snapshot) { return live.Decide(snapshot); });
}

}  // namespace gpupool::op
