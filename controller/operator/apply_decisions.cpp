// Cycle step 4: the engine's decisions written into the jobs' desired statuses.
// Victims go back to their queue keeping their place in line; admissions record
// their placement first, before any pod moves (docs/operator.md, "Order of writes").
#include "cycle_state.h"

namespace gpupool::op::internal {
namespace {

void Preempt(CycleState& state, const engine::Preemption& preemption) {
  JobRecord* job = state.Job(preemption.victim);
  if (!job) return;
  const bool reclaim = preemption.reason == engine::PreemptionReason::kReclaim;
  const std::string reason = reclaim ? "Reclaimed" : "PreemptedByPriority";
  const std::string message = preemption.message + "; for job " + preemption.beneficiary;
  Requeue(state, *job, api::JobPhase::kPreempted, reason, message);
  ++job->status.preemption_count;
  SetCondition(job->status.conditions, "Preempted", "True", reason, message, state.now,
               job->job().metadata.generation);
  StopAsPreempted(state, *job);
  state.Event(*job, "Normal", "Preempted", "Preempt", message);
}

std::string PlacementText(const engine::Admission& admission) {
  std::map<std::string, int> per_node;
  for (const auto& replica : admission.replicas) ++per_node[replica.node];
  std::string text;
  for (const auto& [node, count] : per_node) {
    if (!text.empty()) text += ", ";
    text += node + (count > 1 ? " (x" + std::to_string(count) + ")" : "");
  }
  return text;
}

void Admit(CycleState& state, const engine::Admission& admission) {
  JobRecord* job = state.Job(admission.job);
  if (!job) return;
  const auto& spec = job->job().spec;
  const std::int64_t generation = job->job().metadata.generation;
  job->stage = Stage::kHolding;
  job->admitted_now = true;
  job->status.phase = api::JobPhase::kAdmitted;
  job->status.admitted_time = FormatTime(state.now);
  job->status.placement.clear();
  for (std::size_t i = 0; i < admission.replicas.size(); ++i) {
    const auto& replica = admission.replicas[i];
    job->status.placement.push_back({static_cast<std::int32_t>(i),
                                     replica.node,
                                     {replica.devices.begin(), replica.devices.end()}});
  }
  job->status.admitted_queue = spec.queue;
  job->status.allocated_gpu = api::Quantity::FromMilli(
      spec.gpus_per_replica.milli * static_cast<std::int64_t>(admission.replicas.size()));
  job->status.over_quota = admission.over_quota;
  std::string message = "admitted on " + PlacementText(admission);
  if (admission.over_quota) message += ", over quota (may be reclaimed)";
  if (!admission.message.empty()) message += "; " + admission.message;
  SetCondition(job->status.conditions, "Admitted", "True",
               admission.over_quota ? "AdmittedOverQuota" : "Admitted", message, state.now,
               generation);
  if (api::FindCondition(job->status.conditions, "Preempted"))
    SetCondition(job->status.conditions, "Preempted", "False", "Resumed", "admitted again",
                 state.now, generation);
  state.Event(*job, "Normal", "Admitted", "Admit", message);
}

void Wait(CycleState& state, const engine::Waiting& waiting) {
  JobRecord* job = state.Job(waiting.job);
  if (!job) return;
  const std::string overlap = QueueOverlapMessage(state, job->job().spec.queue);
  if (!overlap.empty())
    return SetCondition(job->status.conditions, "Admitted", "False", "QueueNotInForce", overlap,
                        state.now, job->job().metadata.generation);
  SetCondition(job->status.conditions, "Admitted", "False", engine::ToString(waiting.code),
               waiting.message, state.now, job->job().metadata.generation);
}

}  // namespace

void ApplyDecisions(CycleState& state, const engine::Decisions& decisions) {
  for (const auto& preemption : decisions.preemptions) Preempt(state, preemption);
  for (const auto& admission : decisions.admissions) Admit(state, admission);
  for (const auto& waiting : decisions.waiting) Wait(state, waiting);
}

}  // namespace gpupool::op::internal
