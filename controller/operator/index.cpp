// Cycle step 1: the view indexed by name, and one record per TrainingJob.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "cycle_state.h"
#include "pod_template.h"
#include "reservations.h"

namespace gpupool::op::internal {
namespace {

void IndexProjects(CycleState& state) {
  // Projects in the order they claimed their namespaces, so that a namespace
  // two projects claim stays with the first: a project made later, whatever
  // its name, cannot take it.
  std::vector<const ProjectObject*> projects;
  for (const auto& project : state.view.projects) projects.push_back(project.get());
  std::sort(projects.begin(), projects.end(),
            [](const auto* a, const auto* b) { return ClaimsBefore(a, b, kNamespaceConflict); });
  for (const ProjectObject* project : projects) {
    if (!project->errors.empty()) continue;
    state.projects[project->object.metadata.name] = project;
    for (const auto& ns : project->object.spec.namespaces)
      state.project_of_namespace.emplace(ns, project->object.metadata.name);
  }
}

// Each TrainingJob's "namespace/name" by its UID.
std::unordered_map<std::string, std::string> JobsByUid(const CycleState& state) {
  std::unordered_map<std::string, std::string> jobs;
  jobs.reserve(state.view.jobs.size());
  for (const auto& job : state.view.jobs) {
    const auto& meta = job->object.metadata;
    jobs.emplace(meta.uid, meta.namespace_ + "/" + meta.name);
  }
  return jobs;
}

// A pod is a job's through its controller ownerReference to that job's UID,
// never through the labels a tenant can set on any pod.
bool OwnedByItsJob(const PodView& pod,
                   const std::unordered_map<std::string, std::string>& jobs_by_uid) {
  if (!pod.Managed()) return false;
  const auto job = jobs_by_uid.find(pod.owner_uid);
  return job != jobs_by_uid.end() && job->second == pod.ns + "/" + pod.job;
}

void IndexNodeUse(CycleState& state) {
  const auto jobs_by_uid = JobsByUid(state);
  for (const auto& pod : state.view.pods) {
    if (pod->Finished() || pod->gpu_milli == 0) continue;
    const std::string& host = pod->Host();
    if (host.empty()) continue;
    NodeUse& use = state.node_use[host];
    use.gpu_milli += pod->gpu_milli;
    // Jobs' pods are counted by the engine through their jobs, and a
    // reservation pod holds its device for fractions, which it counts too:
    // anything else on the node is unmanaged use.
    // A pod that asks gpupool to schedule it is counted by BuildPodGroupRecords.
    if (!OwnedByItsJob(*pod, jobs_by_uid) && !IsReservation(state, *pod) && !pod->Asks()) {
      use.unmanaged_milli += pod->gpu_milli;
    }
  }
}

}  // namespace

bool InPool(const api::Queue& queue, const NodeObject& node) {
  for (const auto& [key, value] : queue.spec.node_selector) {
    auto it = node.labels.find(key);
    if (it == node.labels.end() || it->second != value) return false;
  }
  return node.gpus > 0;
}

void IndexCluster(CycleState& state) {
  for (const auto& node : state.view.nodes) state.nodes[node->name] = node.get();
  IndexQueues(state);
  IndexProjects(state);
  for (const auto& department : state.view.departments) {
    if (department->errors.empty())
      state.departments[department->object.metadata.name] = department.get();
  }
  IndexNodeUse(state);
  IndexReservations(state);
}

namespace {

Stage StageOf(const api::TrainingJobStatus& status) {
  if (!status.phase) return Stage::kWaiting;
  switch (*status.phase) {
    case api::JobPhase::kAdmitted:
    case api::JobPhase::kRunning:
      return status.placement.empty() ? Stage::kWaiting : Stage::kHolding;
    case api::JobPhase::kSucceeded:
    case api::JobPhase::kFailed:
      return Stage::kFinished;
    default:
      return Stage::kWaiting;
  }
}

void AttachPods(CycleState& state) {
  std::string key;
  for (const auto& pod : state.view.pods) {
    if (!pod->Managed()) continue;
    key.assign(pod->ns).append("/").append(pod->job);
    JobRecord* job = state.Job(key);
    if (!job) continue;
    const bool ours = pod->owner_uid == job->job().metadata.uid && pod->replica >= 0 &&
                      pod->replica < static_cast<std::int32_t>(job->pods.size()) &&
                      IsReplicaPodName(pod->name, job->name(), pod->replica);
    if (ours) {
      job->pods[static_cast<std::size_t>(pod->replica)] = pod.get();
    } else {
      job->strays.push_back(pod.get());
    }
  }
}

// The finished jobs ("namespace/job") some of whose pods have not finished; a
// finished job with none has nothing left to do.
std::unordered_set<std::string> FinishedJobsWithLivePods(const CycleState& state) {
  std::unordered_set<std::string> finished, live;
  for (const auto& source : state.view.jobs) {
    const auto& meta = source->object.metadata;
    if (StageOf(source->object.status) == Stage::kFinished)
      finished.insert(meta.namespace_ + "/" + meta.name);
  }
  if (finished.empty()) return live;
  std::string key;
  for (const auto& pod : state.view.pods) {
    if (!pod->Managed() || pod->Finished()) continue;
    key.assign(pod->ns).append("/").append(pod->job);
    if (finished.count(key)) live.insert(key);
  }
  return live;
}

}  // namespace

// A finished job whose pods have all finished gets no record: no step of the
// cycle would change anything for it (its status is final; its finished pods
// stay for their logs), and most jobs of a long-running cluster are such jobs.
void BuildJobRecords(CycleState& state) {
  const auto live = FinishedJobsWithLivePods(state);
  const auto asking = static_cast<std::size_t>(std::count_if(
      state.view.pods.begin(), state.view.pods.end(), [](const auto& pod) { return pod->Asks(); }));
  state.jobs.reserve(state.view.jobs.size() + asking);
  state.job_index.reserve(state.view.jobs.size() + asking);
  for (const auto& source : state.view.jobs) {
    const Stage stage = StageOf(source->object.status);
    std::string key = source->object.metadata.namespace_ + "/" + source->object.metadata.name;
    if (stage == Stage::kFinished && !live.count(key)) continue;
    JobRecord job;
    job.source = source.get();
    job.key = std::move(key);
    job.status = source->object.status;
    job.stage = stage;
    const std::int32_t replicas = std::clamp(source->object.spec.replicas, 1, 4096);
    job.pods.assign(static_cast<std::size_t>(replicas), nullptr);
    auto owner = state.project_of_namespace.find(source->object.metadata.namespace_);
    if (owner != state.project_of_namespace.end()) job.project = owner->second;
    state.jobs.push_back(std::move(job));
    state.job_index[state.jobs.back().key] = state.jobs.size() - 1;
  }
  AttachPods(state);
  BuildPodGroupRecords(state);
}

}  // namespace gpupool::op::internal
