// Cycle step 5: each job's pods brought toward what its stage wants. Waiting
// jobs keep one gated pod per replica (none while they wait for a person to
// act, nor with PlanOptions::gated_waiting_pods off); holding jobs get their
// pods released to their nodes (or created released), all at once and only
// where the node has physical room (the pods of a victim still stopping hold
// their devices until they are gone); fractions once the reservation pod of
// their device holds it.
#include "gpupool/json/dump.h"
#include "pod_template.h"
#include "reservations.h"

namespace gpupool::op::internal {
namespace {

void StopPod(CycleState& state, const JobRecord& job, const PodView& pod, bool keep_finished) {
  if (pod.terminating || (keep_finished && pod.Finished())) return;
  state.plan.pod_deletes.push_back(
      {pod.ns, pod.name, pod.uid, job.grace_seconds, job.evict && !pod.Finished(), job.key});
}

void StopAll(CycleState& state, const JobRecord& job, bool keep_finished) {
  for (const PodView* pod : job.pods)
    if (pod) StopPod(state, job, *pod, keep_finished);
  for (const PodView* pod : job.strays) StopPod(state, job, *pod, false);
}

bool NameTaken(const JobRecord& job, const std::string& name) {
  for (const PodView* stray : job.strays)
    if (stray->name == name) return true;
  return false;
}

// `gated`: the pod carries gpupool's admission gate (BuildPod's do, released
// ones keep only their template's own gates).
void AddCreate(CycleState& state, const JobRecord& job, const Json& pod, bool gated) {
  PodCreate create;
  create.job_key = job.key;
  create.job_generation = job.job().metadata.generation;
  create.ns = job.ns();
  create.name = pod["metadata"].value("name", "");
  create.body = json::Dump(pod);
  create.gated = gated;
  create.job_restarts = job.status.restart_count;
  state.plan.pod_creates.push_back(std::move(create));
}

// A gated pod for a replica that has none, within the cycle's budget.
void CreateMissing(CycleState& state, const JobRecord& job, int replica) {
  if (job.pods[static_cast<std::size_t>(replica)] || NameTaken(job, PodName(job, replica))) return;
  const std::size_t budget = state.options.gated_pods_per_cycle;
  if (budget > 0 && state.gated_pods_planned >= budget) {
    ++state.plan.deferred_gated_pods;
    return;
  }
  ++state.gated_pods_planned;
  AddCreate(state, job, BuildPod(state, job, replica), true);
}

void EnsureService(CycleState& state, const JobRecord& job) {
  if (job.job().spec.replicas > 1 && !state.view.services.count(job.key))
    state.plan.services.push_back(BuildGangService(job));
}

// Whether the job waits for a person to act on it (WaitsForAPerson).
bool IsWaitingForAPerson(const JobRecord& job) {
  const api::Condition* admitted = api::FindCondition(job.status.conditions, "Admitted");
  return admitted && admitted->status == "False" && WaitsForAPerson(admitted->reason);
}

void PlanWaiting(CycleState& state, const JobRecord& job) {
  if (IsWaitingForAPerson(job)) return StopAll(state, job, false);
  for (const PodView* stray : job.strays) StopPod(state, job, *stray, false);
  const bool gated = job.eligible && state.options.gated_waiting_pods;
  for (int replica = 0; replica < static_cast<int>(job.pods.size()); ++replica) {
    const PodView* pod = job.pods[static_cast<std::size_t>(replica)];
    if (pod && !pod->terminating && (pod->gate_index < 0 || pod->Finished())) {
      StopPod(state, job, *pod, false);  // Released earlier, or left over from a run.
    } else if (!pod && gated) {
      CreateMissing(state, job, replica);
    }
  }
  if (gated) EnsureService(state, job);
}

// Whether every gated or missing pod of the job fits its node now; if so,
// counts them in.
bool ReserveRoom(CycleState& state, const JobRecord& job) {
  const auto& spec = job.job().spec;
  std::map<std::string, std::int64_t> need;
  for (const auto& placed : job.status.placement) {
    const auto index = static_cast<std::size_t>(placed.replica);
    if (index >= job.pods.size()) continue;  // A placement edited by hand.
    const PodView* pod = job.pods[index];
    if (pod && pod->gate_index < 0) continue;
    if (spec.IsFractional() && SharedDeviceOf(state, job, placed).empty()) return false;
    if (!spec.IsFractional()) need[placed.node] += spec.gpus_per_replica.milli;
  }
  return TakeNodeRoom(state, need);
}

// A holding job's replicas all go to their nodes at once, when every node has
// room: gated pods are released, missing ones created released (the job's
// admission is recorded before any pod is written, so a restart finds it).
// Otherwise missing pods are created gated, to be released together later
// (or, without gated waiting pods, created released once there is room).
void PlanHolding(CycleState& state, const JobRecord& job) {
  for (const PodView* stray : job.strays) StopPod(state, job, *stray, false);
  std::vector<bool> placed_replica(job.pods.size(), false);
  bool stopping = false;
  for (const auto& placed : job.status.placement) {
    const auto index = static_cast<std::size_t>(placed.replica);
    if (index >= job.pods.size()) continue;
    placed_replica[index] = true;
    if (job.pods[index] && job.pods[index]->terminating) stopping = true;
  }
  for (std::size_t i = 0; i < job.pods.size(); ++i) {
    if (!placed_replica[i] && job.pods[i]) StopPod(state, job, *job.pods[i], false);
  }
  EnsureService(state, job);
  const bool release = !stopping && ReserveRoom(state, job);
  for (const auto& placed : job.status.placement) {
    const auto index = static_cast<std::size_t>(placed.replica);
    if (index >= job.pods.size()) continue;
    const PodView* pod = job.pods[index];
    if (!pod && !release) {
      if (state.options.gated_waiting_pods) CreateMissing(state, job, placed.replica);
    } else if (!pod && !NameTaken(job, PodName(job, placed.replica))) {
      AddCreate(state, job,
                BuildReleasedPod(state, job, placed, SharedDeviceOf(state, job, placed)), false);
    } else if (pod && release && pod->gate_index >= 0) {
      state.plan.pod_releases.push_back(
          {job.key, pod->ns, pod->name,
           ReleasePatch(job, *pod, placed, SharedDeviceOf(state, job, placed))});
    }
  }
}

}  // namespace

bool TakeNodeRoom(CycleState& state, const std::map<std::string, std::int64_t>& need) {
  for (const auto& [node, milli] : need) {
    auto it = state.nodes.find(node);
    if (it == state.nodes.end() || state.node_use[node].gpu_milli + milli > it->second->gpus * 1000)
      return false;
  }
  for (const auto& [node, milli] : need) state.node_use[node].gpu_milli += milli;
  return true;
}

void PlanPods(CycleState& state) {
  for (JobRecord& job : state.jobs) {
    if (job.pod_group) {
      PlanPodGroupPods(state, job);
      continue;
    }
    if (job.stop_pods) {
      StopAll(state, job, job.stage == Stage::kFinished);
      continue;
    }
    switch (job.stage) {
      case Stage::kWaiting:
        PlanWaiting(state, job);
        break;
      case Stage::kHolding:
        PlanHolding(state, job);
        break;
      case Stage::kFinished:
        StopAll(state, job, true);
        break;
      case Stage::kIgnored:
        if (job.job().spec.suspend) StopAll(state, job, false);  // Out of line: no pods.
        break;
    }
  }
}

}  // namespace gpupool::op::internal
