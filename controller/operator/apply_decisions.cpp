// Cycle step 4: the engine's decisions written into the jobs' desired statuses.
// Victims go back to their queue keeping their place in line; admissions record
// their placement first, before any pod moves (docs/operator.md, "Order of writes").
#include <algorithm>

#include "cycle_state.h"

namespace gpupool::op::internal {
namespace {

// How soon the standing is looked at again when every cycle is full (no interval).
constexpr engine::Seconds kStandingRecheckSeconds = 30;

void Preempt(CycleState& state, const engine::Preemption& preemption) {
  JobRecord* job = state.Job(preemption.victim);
  if (!job) return;
  const bool reclaim = preemption.reason == engine::PreemptionReason::kReclaim;
  const std::string reason = reclaim ? "Reclaimed" : "PreemptedByPriority";
  const std::string& message = preemption.message;  // Names the job that takes the room.
  Requeue(state, *job, api::JobPhase::kPreempted, reason, message);
  ++job->status.preemption_count;
  SetCondition(job->status.conditions, "Preempted", "True", reason, message, state.now,
               job->job().metadata.generation);
  StopAsPreempted(state, *job);
  state.Event(*job, "Warning", "Preempted", "Preempt", message);
}

std::string PlacementText(const api::TrainingJobStatus& status) {
  std::map<std::string, int> per_node;
  for (const auto& replica : status.placement) ++per_node[replica.node];
  std::string text;
  for (const auto& [node, count] : per_node) {
    if (!text.empty()) text += ", ";
    text += node + (count > 1 ? " (x" + std::to_string(count) + ")" : "");
  }
  return text;
}

const char* AdmittedReason(bool over_quota) {
  return over_quota ? "AdmittedOverQuota" : "Admitted";
}

std::string AdmittedMessage(const api::TrainingJobStatus& status) {
  std::string message = "admitted on " + PlacementText(status);
  if (status.over_quota) message += ", over quota (may be reclaimed)";
  return message;
}

// A running job's standing as this cycle decided it (the engine's
// Decisions::standing): its status, its Admitted condition's reason and an Event
// follow each change. The condition keeps the generation it was written for.
void ShowStanding(CycleState& state, JobRecord& job, bool over_quota) {
  if (job.status.over_quota == over_quota) return;
  job.status.over_quota = over_quota;
  const api::Condition* admitted = api::FindCondition(job.status.conditions, "Admitted");
  if (admitted && admitted->status == "True") {
    SetCondition(job.status.conditions, "Admitted", "True", AdmittedReason(over_quota),
                 AdmittedMessage(job.status), state.now, admitted->observed_generation);
  }
  if (over_quota) {
    state.Event(job, "Normal", "OverQuota", "Rank",
                "now over its project's quota: among the first of its project's jobs a reclaim "
                "would stop");
  } else {
    state.Event(job, "Normal", "WithinQuota", "Rank",
                "now within its project's quota: a reclaim stops the project's jobs shown over "
                "quota before it");
  }
}

// Whether the decisions show the job over its project's quota (they list every job
// they admit; `standing` is sorted by name).
bool ShownOverQuota(const std::vector<engine::Standing>& standing, const std::string& job) {
  auto it = std::lower_bound(
      standing.begin(), standing.end(), job,
      [](const engine::Standing& s, const std::string& name) { return s.job < name; });
  return it != standing.end() && it->job == job && it->over_quota;
}

// `over_quota`: shown over its project's quota (engine::Decisions::standing).
void Admit(CycleState& state, const engine::Admission& admission, bool over_quota) {
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
  job->status.allocated_gpu = json::Quantity::FromMilli(
      spec.gpus_per_replica.milli * static_cast<std::int64_t>(admission.replicas.size()));
  job->status.over_quota = over_quota;
  std::string message = AdmittedMessage(job->status);
  if (!admission.message.empty()) message += "; " + admission.message;
  SetCondition(job->status.conditions, "Admitted", "True", AdmittedReason(over_quota), message,
               state.now, generation);
  if (api::FindCondition(job->status.conditions, "Preempted"))
    SetCondition(job->status.conditions, "Preempted", "False", "Resumed", "admitted again",
                 state.now, generation);
  if (!job->pod_group)
    state.Event(*job, "Normal", "Admitted", "Admit", message);  // Else at release.
}

// Why the job waits; a preempted job first says what stopped it.
std::string WaitingMessage(const JobRecord& job, const engine::Waiting& waiting) {
  const api::Condition* preempted = api::FindCondition(job.status.conditions, "Preempted");
  if (job.status.phase != api::JobPhase::kPreempted || !preempted || preempted->status != "True")
    return waiting.message;
  return preempted->message + "; now waits: " + waiting.message;
}

void Wait(CycleState& state, const engine::Waiting& waiting) {
  JobRecord* job = state.Job(waiting.job);
  if (!job) return;
  const std::string overlap = QueueOverlapMessage(state, job->job().spec.queue);
  if (!overlap.empty())
    return SetCondition(job->status.conditions, "Admitted", "False", "QueueNotInForce", overlap,
                        state.now, job->job().metadata.generation);
  SetCondition(job->status.conditions, "Admitted", "False", engine::ToString(waiting.code),
               WaitingMessage(*job, waiting), state.now, job->job().metadata.generation);
}

// The standing moves with time alone (each job's work lost grows at its own rate):
// while a project runs over its quota, the controller looks again by the next full
// cycle, which marks it anew, even if nothing else happens.
void WakeForStanding(CycleState& state, const engine::Decisions& decisions) {
  const bool over = std::any_of(decisions.shares.begin(), decisions.shares.end(),
                                [](const engine::ProjectShare& s) { return s.over_quota > 0; });
  if (!over) return;
  const engine::Seconds interval = state.options.engine.full_cycle_interval_seconds;
  state.Wake(state.now + (interval > 0 ? interval : kStandingRecheckSeconds));
}

}  // namespace

void ApplyDecisions(CycleState& state, const engine::Decisions& decisions) {
  for (const auto& preemption : decisions.preemptions) Preempt(state, preemption);
  for (const auto& admission : decisions.admissions)
    Admit(state, admission, ShownOverQuota(decisions.standing, admission.job));
  for (const auto& waiting : decisions.waiting) Wait(state, waiting);
  for (const auto& standing : decisions.standing) {
    JobRecord* job = state.Job(standing.job);
    if (!job || job->stage != Stage::kHolding || job->admitted_now) continue;
    ShowStanding(state, *job, standing.over_quota);
  }
  WakeForStanding(state, decisions);
}

}  // namespace gpupool::op::internal
