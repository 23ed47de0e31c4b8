// What the cycle does for a pod group (pod_groups.cpp, docs/workloads.md): its
// lifecycle read from its pods, its pods released whole to their slots or
// evicted, and what it records on them, since it has no status of its own: its
// admission (an annotation, written with each release) and why it waits (a pod
// condition, written when it changes).
#include <algorithm>

#include "cycle_state.h"
#include "gpupool/json/dump.h"
#include "pod_template.h"
#include "reservations.h"

namespace gpupool::op::internal {
namespace {

bool Released(const PodView& pod) { return pod.gate_index < 0; }
bool Live(const PodView& pod) { return !pod.terminating && !pod.Finished(); }

const PodView* HolderOf(const JobRecord& job, std::int32_t replica) {
  for (const PodView* pod : job.pods)
    if (Live(*pod) && Released(*pod) && pod->replica == replica) return pod;
  return nullptr;
}

bool AllSlotsRunning(const JobRecord& job) {
  for (const auto& placed : job.status.placement) {
    const PodView* pod = HolderOf(job, placed.replica);
    if (!pod || pod->phase != PodPhase::kRunning) return false;
  }
  return !job.status.placement.empty();
}

void Hold(CycleState& state, JobRecord& job, const std::string& reason,
          const std::string& message) {
  job.eligible = false;
  SetCondition(job.status.conditions, "Admitted", "False", reason, message, state.now, 0);
}

// A waiting group goes to the engine once all its pods exist, each held by the
// admission gate; a pod without the gate is scheduled without gpupool.
void CheckGroupEligible(CycleState& state, JobRecord& job) {
  for (const PodView* pod : job.pods) {
    if (!Live(*pod) || !Released(*pod)) continue;
    return Hold(state, job, "NotGated",
                "pod " + pod->name + " has no " + std::string(kAdmissionGate) +
                    " scheduling gate: it is scheduled without gpupool, outside its project's "
                    "quota; create it with the gate");
  }
  if (!job.unseen_owner.empty())
    return Hold(state, job, "WaitingForPods",
                "its owner " + job.unseen_owner +
                    " is not seen yet, so its gang's size is not known (gpupool watches an "
                    "owner's kind where it is served when gpupool starts); it is admitted whole "
                    "once it is seen and all its pods exist");
  std::size_t waiting = 0;
  for (const PodView* pod : job.pods) waiting += Live(*pod) ? 1 : 0;
  const auto size = static_cast<std::size_t>(job.job().spec.replicas);
  if (waiting < size)
    Hold(state, job, "WaitingForPods",
         std::to_string(waiting) + " of the " + std::to_string(size) + " pods of group " +
             job.name() + " exist; it is admitted whole once all do");
}

std::string AdmissionRecord(const api::TrainingJobStatus& status) {
  api::TrainingJobStatus record;
  record.admitted_time = status.admitted_time;
  record.admitted_queue = status.admitted_queue;
  record.over_quota = status.over_quota;
  record.placement = status.placement;
  return json::Dump(api::TrainingJobStatusToJson(record));
}

Json GroupReleasePatch(const JobRecord& job, const PodView& pod,
                       const api::ReplicaPlacement& placed, const std::string& shared_device) {
  Json patch = ReleasePatch(job, pod, placed, shared_device);
  if (!pod.request->has_annotations) {  // A JSON patch adds only to a map that is there.
    const auto first = std::find_if(patch.begin(), patch.end(), [](const Json& op) {
      return op.value("path", "").rfind("/metadata/annotations/", 0) == 0;
    });
    const Json add_map = {
        {"op", "add"}, {"path", "/metadata/annotations"}, {"value", Json::object()}};
    patch.insert(first, add_map);
  }
  patch.push_back({{"op", "add"},
                   {"path", "/metadata/annotations/" + PointerToken(kAdmissionAnnotation)},
                   {"value", AdmissionRecord(job.status)}});
  patch.push_back({{"op", "add"},
                   {"path", "/metadata/labels/" + PointerToken(kReplicaLabel)},
                   {"value", std::to_string(placed.replica)}});
  return patch;
}

// A gated pod for each slot no live pod holds, in name order.
std::vector<std::pair<const PodView*, const api::ReplicaPlacement*>> SlotsToFill(
    const JobRecord& job) {
  std::vector<const PodView*> gated;
  for (const PodView* pod : job.pods)
    if (Live(*pod) && !Released(*pod)) gated.push_back(pod);
  std::vector<std::pair<const PodView*, const api::ReplicaPlacement*>> fills;
  for (const auto& placed : job.status.placement) {
    if (fills.size() == gated.size()) break;
    if (!HolderOf(job, placed.replica)) fills.emplace_back(gated[fills.size()], &placed);
  }
  return fills;
}

// Whether every slot to fill has room on its node now; if so, counts them in.
bool RoomFor(CycleState& state, const JobRecord& job,
             const std::vector<std::pair<const PodView*, const api::ReplicaPlacement*>>& fills) {
  const auto& spec = job.job().spec;
  std::map<std::string, std::int64_t> need;
  for (const auto& [pod, placed] : fills) {
    if (spec.IsFractional() && SharedDeviceOf(state, job, *placed).empty()) return false;
    if (!spec.IsFractional()) need[placed->node] += spec.gpus_per_replica.milli;
  }
  return TakeNodeRoom(state, need);
}

void EvictReleased(CycleState& state, const JobRecord& job) {
  for (const auto* pods : {&job.pods, &job.riders}) {
    for (const PodView* pod : *pods) {
      if (!Live(*pod) || !Released(*pod)) continue;
      state.plan.pod_deletes.push_back(
          {pod->ns, pod->name, pod->uid, job.grace_seconds, job.evict, ""});
    }
  }
}

// Its owner's pods that ask for no GPU go once its own pods hold their slots.
void ReleaseRiders(CycleState& state, const JobRecord& job) {
  for (const PodView* pod : job.riders)
    if (Live(*pod) && !Released(*pod))
      state.plan.pod_releases.push_back({job.key, pod->ns, pod->name, UngatePatch(*pod)});
}

PodPatch ConditionPatch(const CycleState& state, const PodView& pod, const api::Condition& said) {
  Json condition = {{"type", kAdmittedCondition},
                    {"status", said.status},
                    {"reason", said.reason},
                    {"message", said.message},
                    {"lastTransitionTime", FormatTime(state.now)}};
  return {pod.ns, pod.name, {{"status", {{"conditions", Json::array({condition})}}}}, true};
}

// A holding group's standing changed (shown over or within its project's
// quota): its released pods' admission record follows, as a TrainingJob's status.
void RecordStanding(CycleState& state, const JobRecord& job) {
  const Json annotations = {{kAdmissionAnnotation, AdmissionRecord(job.status)}};
  for (const PodView* pod : job.pods) {
    if (Live(*pod) && Released(*pod))
      state.plan.pod_patches.push_back(
          {pod->ns, pod->name, {{"metadata", {{"annotations", annotations}}}}});
  }
}

}  // namespace

void AdvancePodGroup(CycleState& state, JobRecord& job) {
  if (job.stage == Stage::kHolding) {
    job.status.phase = AllSlotsRunning(job) ? api::JobPhase::kRunning : api::JobPhase::kAdmitted;
  } else if (job.stage == Stage::kWaiting) {
    CheckGroupEligible(state, job);
  }
}

void PlanPodGroupPods(CycleState& state, JobRecord& job) {
  if (job.stop_pods) return EvictReleased(state, job);
  if (job.stage != Stage::kHolding) return;
  const auto fills = SlotsToFill(job);
  if (fills.empty()) return ReleaseRiders(state, job);
  if (!RoomFor(state, job, fills)) {
    if (job.admitted_now)  // Decided again next cycle: its admission is kept on its pods only.
      SetCondition(job.status.conditions, "Admitted", "False", "AwaitingRoom",
                   "admitted, but its nodes have no room for it yet (pods stopped for it still "
                   "run, or its fraction's device is not held yet); released once they have",
                   state.now, 0);
    return;
  }
  for (const auto& [pod, placed] : fills)
    state.plan.pod_releases.push_back(
        {job.key, pod->ns, pod->name,
         GroupReleasePatch(job, *pod, *placed, SharedDeviceOf(state, job, *placed))});
  ReleaseRiders(state, job);
  if (!job.admitted_now) return;
  const api::Condition* admitted = api::FindCondition(job.status.conditions, "Admitted");
  state.Event(job, "Normal", "Admitted", "Admit", admitted ? admitted->message : "admitted");
}

void PlanPodGroupState(CycleState& state, const JobRecord& job) {
  if (job.stage == Stage::kHolding && !job.admitted_now &&
      job.status.over_quota != job.job().status.over_quota)
    RecordStanding(state, job);
  const api::Condition* said = api::FindCondition(job.status.conditions, "Admitted");
  if (!said) return;
  for (const PodView* pod : job.pods) {
    if (!Live(*pod)) continue;
    const PodAdmission& shown = pod->request->admission;
    if (shown.status == said->status && shown.reason == said->reason &&
        shown.message == said->message)
      continue;
    state.plan.pod_patches.push_back(ConditionPatch(state, *pod, *said));
  }
}

}  // namespace gpupool::op::internal
