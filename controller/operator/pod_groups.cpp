// Cycle step 1, second half: pods of other owners that ask gpupool to schedule
// them (docs/workloads.md) become job records like TrainingJobs': a pod alone,
// the pods naming one gpupool.dev/pod-group, or the pods of one owner (a batch
// Job, JobSet, PyTorchJob or MPIJob), as one gang. Their state is read
// from the pods themselves: a released pod carries its gang's admission, gated
// ones wait, and a group whose pods have all finished gets no record.
#include <algorithm>
#include <map>

#include "cycle_state.h"
#include "gpupool/json/quantity.h"
#include "gpupool/operator/pod_labels.h"

namespace gpupool::op::internal {
namespace {

struct Group {
  std::string ns, name;
  bool named = false;     // A gpupool.dev/pod-group, or an owner's pods: not a pod alone.
  bool by_owner = false;  // They name no group: their owner's pods are its gang.
  const OwnerObject* owner = nullptr;  // The owner whose gang it is, when seen.
  std::string unseen_owner;            // "PyTorchJob bert", when not.
  std::vector<const PodView*> pods;
  std::vector<const PodView*> riders;  // Pods of its owner that ask for no GPU.
};

using Owners = std::map<std::string, const OwnerObject*, std::less<>>;  // By uid.

// Pods naming no group whose owner is a batch Job, a PyTorchJob or an MPIJob
// (a JobSet's pods, and an MPIJob's launcher, are its Jobs') are one gang.
bool GroupedByOwner(const PodView& pod) {
  const PodRequest& request = *pod.request;
  if (!request.group.empty() || pod.owner_uid.empty()) return false;
  if (request.owner_kind == "Job") return request.owner_api_version == "batch/v1";
  return request.owner_kind == "PyTorchJob" || request.owner_kind == "MPIJob";
}

// The owner of that uid in namespace `ns`: an owner reference names an object
// of the pod's own namespace, and one naming another's is not believed (it
// would borrow that owner's size and place in the queue).
const OwnerObject* OwnerIn(const Owners& owners, const std::string& uid, const std::string& ns) {
  const auto found = owners.find(uid);
  return found != owners.end() && found->second->ns == ns ? found->second : nullptr;
}

struct GangOwnerId {
  std::string uid, name, kind;
};

// The owner whose gang an owned pod is: the JobSet or MPIJob controlling its
// Job, or else its own owner; seen or not.
GangOwnerId GangOwnerOf(const PodView& pod, const Owners& owners) {
  if (const OwnerObject* job = OwnerIn(owners, pod.owner_uid, pod.ns)) {
    if (job->controller_kind == "JobSet" || job->controller_kind == "MPIJob")
      return {job->controller_uid, job->controller_name, job->controller_kind};
  }
  return {pod.owner_uid, pod.request->owner_name, pod.request->owner_kind};
}

// "namespace/pod:name", "namespace/group:name" or "namespace/job:uid": never a
// TrainingJob's key, whose names cannot hold a colon.
std::string GroupKey(const PodView& pod, const Owners& owners) {
  const PodRequest& request = *pod.request;
  if (GroupedByOwner(pod)) return pod.ns + "/job:" + GangOwnerOf(pod, owners).uid;
  return pod.ns + "/" + (request.group.empty() ? "pod:" + pod.name : "group:" + request.group);
}

void StartGroup(const PodView& pod, const Owners& owners, Group& group) {
  group.ns = pod.ns;
  group.by_owner = GroupedByOwner(pod);
  group.named = group.by_owner || !pod.request->group.empty();
  group.name = group.named ? pod.request->group : pod.name;
  if (!group.by_owner) return;
  const GangOwnerId id = GangOwnerOf(pod, owners);
  group.name = id.name;
  group.owner = OwnerIn(owners, id.uid, pod.ns);
  if (!group.owner) group.unseen_owner = id.kind + " " + id.name;
}

bool AsksForNoGpu(const PodView* pod) {
  return pod->gpu_milli == 0 && pod->request->fraction.empty();
}

// An owner's pods that ask for no GPU, beside others that do, ride along.
void SeparateRiders(Group& group) {
  if (!group.by_owner || std::all_of(group.pods.begin(), group.pods.end(), AsksForNoGpu)) return;
  const auto riders = std::stable_partition(group.pods.begin(), group.pods.end(),
                                            [](const PodView* pod) { return !AsksForNoGpu(pod); });
  group.riders.assign(riders, group.pods.end());
  group.pods.erase(riders, group.pods.end());
}

std::map<std::string, Group> GatherGroups(const CycleState& state) {
  Owners owners;
  for (const auto& owner : state.view.owners) owners[owner->uid] = owner.get();
  std::map<std::string, Group> groups;
  for (const auto& pod : state.view.pods) {
    if (!pod->Asks()) continue;
    Group& group = groups[GroupKey(*pod, owners)];
    if (group.pods.empty()) StartGroup(*pod, owners, group);
    group.pods.push_back(pod.get());
  }
  for (auto& [key, group] : groups) {
    std::sort(group.pods.begin(), group.pods.end(),
              [](const PodView* a, const PodView* b) { return a->name < b->name; });
    SeparateRiders(group);
  }
  return groups;
}

void Refuse(json::FieldErrors& errors, const std::string& path, const std::string& message) {
  errors.push_back({path, message});
}

// The same value on every pod of the group, or an error naming the field.
std::string Agreed(const Group& group, std::string PodRequest::*field, const std::string& path,
                   json::FieldErrors& errors) {
  const std::string& first = (*group.pods.front()->request).*field;
  for (const PodView* pod : group.pods) {
    if ((*pod->request).*field == first) continue;
    Refuse(errors, path,
           "the pods of group " + group.name + " disagree (\"" + first + "\" on " +
               group.pods.front()->name + ", \"" + (*pod->request).*field + "\" on " + pod->name +
               ")");
    break;
  }
  return first;
}

// An owner's gang: the pods asking for GPUs it runs at once. An owner not seen
// yet (its pods' events came first, or its kind is not watched) counts one pod
// more than exist, so its gang waits.
std::int32_t OwnerGangSize(const Group& group) {
  if (group.owner) return group.owner->gang_size;
  return static_cast<std::int32_t>(group.pods.size()) + 1;
}

std::int32_t GroupSize(const Group& group, json::FieldErrors& errors) {
  const std::string path = LabelPath(kPodGroupSizeLabel);
  const std::string text = Agreed(group, &PodRequest::group_size, path, errors);
  if (group.by_owner && text.empty()) return OwnerGangSize(group);
  if (!group.named) return 1;
  if (const std::string problem = PodGroupSizeProblem(text); !problem.empty()) {
    Refuse(errors, path, problem);
    return 1;
  }
  const std::int32_t size = std::stoi(text);
  if (group.pods.size() > static_cast<std::size_t>(size))
    Refuse(errors, path,
           std::to_string(group.pods.size()) + " pods name group " + group.name + " of " +
               std::to_string(size));
  return size;
}

api::WorkloadClass ClassOf(const Group& group, json::FieldErrors& errors) {
  const std::string path = LabelPath(kWorkloadClassLabel);
  const std::string text = Agreed(group, &PodRequest::workload_class, path, errors);
  if (text == "Train") return api::WorkloadClass::kTrain;
  if (text == "Build") return api::WorkloadClass::kBuild;
  if (text == "Inference") return api::WorkloadClass::kInference;
  if (const std::string problem = WorkloadClassProblem(text); !problem.empty())
    Refuse(errors, path, problem);
  // A Deployment's or StatefulSet's replicas serve: each is its own Inference workload.
  const std::string& owner = group.pods.front()->request->owner_kind;
  if (owner == "ReplicaSet" || owner == "StatefulSet") return api::WorkloadClass::kInference;
  return api::WorkloadClass::kTrain;
}

// Milli-GPUs per pod: a fraction's annotation, or the pods' nvidia.com/gpu.
std::int64_t GpusPerPod(const Group& group, std::int32_t size, json::FieldErrors& errors) {
  const std::string path = AnnotationPath(kFractionAnnotation);
  const std::string fraction = Agreed(group, &PodRequest::fraction, path, errors);
  const std::int64_t whole = group.pods.front()->gpu_milli;
  for (const PodView* pod : group.pods) {
    if (pod->gpu_milli == whole) continue;
    Refuse(errors, "spec.containers[*].resources",
           "the pods of group " + group.name + " ask for different numbers of GPUs");
    break;
  }
  if (fraction.empty()) {
    if (whole <= 0)
      Refuse(errors, "spec.containers[*].resources",
             "asks for no GPU: request nvidia.com/gpu, or annotate " +
                 std::string(kFractionAnnotation) + " for part of one");
    return whole;
  }
  std::string error;
  const auto milli = json::ParseMilli(fraction, &error);
  if (const std::string problem = GpuFractionProblem(fraction); !problem.empty())
    Refuse(errors, path, problem);
  else if (whole > 0)
    Refuse(errors, path,
           "a pod asks for part of a GPU or for whole GPUs (nvidia.com/gpu), not both");
  else if (size > 1)
    Refuse(errors, path, "a group of several pods asks for whole GPUs; fractions are for one pod");
  return milli.value_or(0);
}

// Its place in the queue: its owner's creation, which pods made again after a
// preemption keep; else its earliest pod's.
std::string QueuedSince(const Group& group) {
  if (group.owner && ParseTime(group.owner->created)) return group.owner->created;
  std::string earliest;
  EpochSeconds best = 0;
  for (const PodView* pod : group.pods) {
    const auto at = ParseTime(pod->request->created);
    if (at && (earliest.empty() || *at < best)) {
      best = *at;
      earliest = pod->request->created;
    }
  }
  return earliest;
}

JobObject SourceOf(const Group& group) {
  JobObject source;
  api::TrainingJob& job = source.object;
  json::FieldErrors& errors = source.errors;
  const PodView& first = *group.pods.front();
  job.metadata.name = group.name;
  job.metadata.namespace_ = group.ns;
  job.metadata.uid = group.owner               ? group.owner->uid
                     : first.owner_uid.empty() ? first.uid
                                               : first.owner_uid;
  job.metadata.creation_timestamp = QueuedSince(group);
  job.spec.queue = Agreed(group, &PodRequest::queue, LabelPath(kQueueLabel), errors);
  job.spec.replicas = GroupSize(group, errors);
  job.spec.workload_class = ClassOf(group, errors);
  job.spec.gpus_per_replica =
      json::Quantity::FromMilli(GpusPerPod(group, job.spec.replicas, errors));
  // Where its pods may run: the engine places them only there.
  Json selector = Json::object();
  for (const auto& [key, value] : first.request->node_selector)
    if (key != kHostnameLabel || first.gate_index >= 0) selector[key] = value;
  if (!selector.empty()) job.spec.pod_template = {{"spec", {{"nodeSelector", selector}}}};
  return source;
}

// A released pod whose admission record is gpupool's: it holds its own slot on
// the node it is bound or pinned to, admitted after the pod was made. A record
// that claims otherwise is not believed: the pod's labels and annotations are
// its owner's to write, and an admission older than the pod could take devices
// from jobs admitted before it was.
bool HoldsItsSlot(const PodView& pod, const api::TrainingJobStatus& admission) {
  if (pod.gate_index >= 0 || pod.terminating || pod.Finished() || pod.replica < 0) return false;
  const auto admitted = ParseTime(admission.admitted_time.value_or(""));
  const auto created = ParseTime(pod.request->created);
  if (!admitted || !created || *admitted < *created) return false;
  for (const auto& placed : admission.placement)
    if (placed.replica == pod.replica) return placed.node == pod.Host() && !placed.node.empty();
  return false;
}

// The admission a released pod of the group records; nullopt when none does.
std::optional<api::TrainingJobStatus> RecordedAdmission(const Group& group) {
  for (const PodView* pod : group.pods) {
    const auto& admission = pod->request->admission_record;
    if (admission && HoldsItsSlot(*pod, *admission)) return *admission;
  }
  return std::nullopt;
}

// The group's Admitted condition, as its pods' condition last said.
void ReadAdmittedCondition(const Group& group, api::TrainingJobStatus& status) {
  for (const PodView* pod : group.pods) {
    const PodAdmission& said = pod->request->admission;
    if (said.status.empty()) continue;
    status.conditions.push_back({"Admitted", said.status, said.reason, said.message, "", 0});
    return;
  }
}

bool AllFinished(const Group& group) {
  return std::all_of(group.pods.begin(), group.pods.end(),
                     [](const PodView* pod) { return pod->Finished(); });
}

JobRecord RecordOf(CycleState& state, const std::string& key, const Group& group) {
  state.pod_group_sources.push_back(SourceOf(group));
  JobObject& source = state.pod_group_sources.back();
  JobRecord job;
  job.source = &source;
  job.key = key;
  job.pod_group = true;
  job.pods = group.pods;
  job.owner = group.owner;
  job.unseen_owner = group.unseen_owner;
  job.riders = group.riders;
  auto owner = state.project_of_namespace.find(group.ns);
  if (owner != state.project_of_namespace.end()) job.project = owner->second;
  if (auto admission = RecordedAdmission(group)) {
    job.status = std::move(*admission);
    job.status.phase = api::JobPhase::kAdmitted;
    job.stage = Stage::kHolding;
  } else {
    job.status.phase = api::JobPhase::kQueued;
  }
  ReadAdmittedCondition(group, job.status);
  job.status.queued_time = source.object.metadata.creation_timestamp;
  source.object.status = job.status;  // As observed.
  return job;
}

// The devices of the group's pods that hold no slot of its admission are not
// the engine's to count through the group: they are unmanaged use of their node.
void CountUnmanagedUse(CycleState& state, const JobRecord& job) {
  for (const PodView* pod : job.pods) {
    if (pod->Finished() || pod->gpu_milli == 0 || pod->Host().empty()) continue;
    if (job.stage == Stage::kHolding && HoldsItsSlot(*pod, job.status)) continue;
    state.node_use[pod->Host()].unmanaged_milli += pod->gpu_milli;
  }
}

}  // namespace

void BuildPodGroupRecords(CycleState& state) {
  for (const auto& [key, group] : GatherGroups(state)) {
    if (AllFinished(group)) continue;
    state.jobs.push_back(RecordOf(state, key, group));
    state.job_index[state.jobs.back().key] = state.jobs.size() - 1;
    CountUnmanagedUse(state, state.jobs.back());
  }
}

}  // namespace gpupool::op::internal
