// Cycle step 6: status writes, only where something changed, and an Event for
// every change of why a job waits (not one per cycle).
#include "cycle_state.h"

namespace gpupool::op::internal {

bool WaitsForAPerson(const std::string& reason) {
  return reason == "InvalidSpec" || reason == "NoProject" || reason == "PodTemplateRejected" ||
         reason == "PodForbidden" || reason == "UnknownQueue" || reason == "InvalidRequest" ||
         reason == "NoMatchingNodes" || reason == "ExceedsLimit" || reason == "QueueNotInForce" ||
         reason == "NotGated";
}

namespace {

void NoteWaitingChange(CycleState& state, JobRecord& job) {
  if (job.noted) return;
  const api::Condition* now = api::FindCondition(job.status.conditions, "Admitted");
  if (!now || now->status != "False" || now->reason == "Finished") return;
  const api::Condition* before = api::FindCondition(job.job().status.conditions, "Admitted");
  if (before && before->status == now->status && before->reason == now->reason &&
      before->message == now->message)
    return;
  state.Event(job, WaitsForAPerson(now->reason) ? "Warning" : "Normal", now->reason, "Wait",
              now->message);
}

// A finished job's status gives devices back only where a pod of it still
// holds them; otherwise they are free already, whatever its status says.
bool PodsStillHold(const JobRecord& job) {
  for (const auto* group : {&job.pods, &job.strays})
    for (const PodView* pod : *group)
      if (pod && !pod->Finished()) return true;
  return false;
}

}  // namespace

std::optional<StatusWrite> MakeStatusWrite(Kind kind, const api::ObjectMeta& meta,
                                           const Json& old_status, const Json& new_status) {
  if (old_status == new_status) return std::nullopt;
  Json status = new_status;
  if (old_status.is_object()) {
    for (const auto& [key, value] : old_status.items())
      if (!status.contains(key)) status[key] = nullptr;
  }
  StatusWrite write;
  write.kind = kind;
  write.ns = meta.namespace_;
  write.name = meta.name;
  write.patch = {{"metadata", {{"resourceVersion", meta.resource_version}}}, {"status", status}};
  return write;
}

namespace {

std::optional<StatusWrite> StatusWriteOf(const JobRecord& job) {
  return MakeStatusWrite(Kind::kTrainingJob, job.job().metadata,
                         api::TrainingJobStatusToJson(job.job().status),
                         api::TrainingJobStatusToJson(job.status));
}

// The write list of a job whose status admits, frees devices or ends it;
// null for the others, which the cycle's budget limits.
std::vector<StatusWrite>* UnbudgetedList(CycleState& state, const JobRecord& job) {
  if (job.stage == Stage::kFinished && !PodsStillHold(job)) return &state.plan.finished_statuses;
  if (job.frees_devices && !job.admitted_now) return &state.plan.releasing_statuses;
  if (job.admitted_now) return &state.plan.admission_statuses;
  return nullptr;
}

}  // namespace

void PlanJobStatuses(CycleState& state) {
  std::vector<JobRecord*> others;
  for (JobRecord& job : state.jobs) {
    NoteWaitingChange(state, job);
    if (job.pod_group && job.status.phase)
      ++state.plan.pod_group_phases[api::JobPhaseName(*job.status.phase)];
    if (job.status == job.job().status) continue;  // Most jobs, most cycles: no JSON needed.
    if (job.pod_group) {
      PlanPodGroupState(state, job);
      continue;
    }
    std::vector<StatusWrite>* list = UnbudgetedList(state, job);
    if (!list) {
      others.push_back(&job);
    } else if (auto write = StatusWriteOf(job)) {
      list->push_back(std::move(*write));
    }
  }
  for (const JobRecord* job : WithinStatusBudget(state, others)) {
    if (auto write = StatusWriteOf(*job)) {
      write->courtesy = job->status.over_quota == job->job().status.over_quota;
      state.plan.other_statuses.push_back(std::move(*write));
    }
  }
}

}  // namespace gpupool::op::internal
