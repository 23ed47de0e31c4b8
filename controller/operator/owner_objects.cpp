// The owners of pods that gpupool groups (docs/workloads.md), as the operator
// reads them: who they are, who controls them, and how many pods asking for
// GPUs they run at once.
#include <algorithm>

#include "gpupool/json/reader.h"
#include "gpupool/operator/cluster_view.h"

namespace gpupool::op {
namespace {

using Json = nlohmann::json;

constexpr std::int32_t kMostPods = 1 << 20;

// `object`'s member `key`; nullptr when it is not an object or lacks it.
const Json* Member(const Json& object, const char* key) { return json::Member(&object, key); }

std::string Text(const Json& object, const char* key) {
  const Json* value = Member(object, key);
  return value && value->is_string() ? value->get<std::string>() : "";
}

std::int32_t Count(const Json& object, const char* key, std::int32_t fallback) {
  const Json* value = Member(object, key);
  if (!value || !value->is_number_integer()) return fallback;
  return static_cast<std::int32_t>(
      std::clamp<std::int64_t>(value->get<std::int64_t>(), 0, kMostPods));
}

const Json& Section(const Json& object, const char* key) {
  static const Json kEmpty = Json::object();
  const Json* value = Member(object, key);
  return value ? *value : kEmpty;
}

// Whether pods made from `pod_template` ask for GPUs, whole or a fraction.
bool AsksForGpus(const Json& pod_template) {
  if (PodSpecGpuMilli(Section(pod_template, "spec")) > 0) return true;
  return Member(Section(Section(pod_template, "metadata"), "annotations"), kFractionAnnotation);
}

// The pods a Job spec runs at once: its parallelism, or its completions when fewer.
std::int32_t JobGangSize(const Json& job_spec) {
  std::int32_t size = Count(job_spec, "parallelism", 1);
  const std::int32_t completions = Count(job_spec, "completions", -1);
  if (completions >= 0) size = std::min(size, completions);
  return size;
}

// A JobSet's replicated Jobs whose pods ask for GPUs: replicas × each Job's gang.
std::int32_t JobSetGangSize(const Json& spec) {
  std::int64_t size = 0;
  const Json* replicated = Member(spec, "replicatedJobs");
  if (!replicated || !replicated->is_array()) return 0;
  for (const Json& jobs : *replicated) {
    const Json& job_spec = Section(Section(jobs, "template"), "spec");
    if (AsksForGpus(Section(job_spec, "template")))
      size += std::int64_t{Count(jobs, "replicas", 1)} * JobGangSize(job_spec);
  }
  return static_cast<std::int32_t>(std::min<std::int64_t>(size, kMostPods));
}

// A PyTorchJob's or MPIJob's replicas (`specs`, by replica type) whose pods ask for GPUs.
std::int32_t ReplicaSpecsGangSize(const Json& specs) {
  std::int64_t size = 0;
  if (!specs.is_object()) return 0;
  for (const auto& [type, replicas] : specs.items())
    if (AsksForGpus(Section(replicas, "template"))) size += Count(replicas, "replicas", 1);
  return static_cast<std::int32_t>(std::min<std::int64_t>(size, kMostPods));
}

std::int32_t GangSizeOf(const std::string& kind, const Json& spec) {
  if (kind == "Job") return JobGangSize(spec);
  if (kind == "JobSet") return JobSetGangSize(spec);
  if (kind == "PyTorchJob") return ReplicaSpecsGangSize(Section(spec, "pytorchReplicaSpecs"));
  if (kind == "MPIJob") return ReplicaSpecsGangSize(Section(spec, "mpiReplicaSpecs"));
  return 1;
}

void ReadController(const Json& metadata, OwnerObject& owner) {
  const Json* references = Member(metadata, "ownerReferences");
  if (!references || !references->is_array()) return;
  for (const Json& reference : *references) {
    const Json* controller = Member(reference, "controller");
    if (!controller || !controller->is_boolean() || !controller->get<bool>()) continue;
    owner.controller_kind = Text(reference, "kind");
    owner.controller_name = Text(reference, "name");
    owner.controller_uid = Text(reference, "uid");
    return;
  }
}

}  // namespace

const std::vector<OwnerKind>& OwnerKinds() {
  static const std::vector<OwnerKind> kOwners = {
      {{"batch", "v1", "jobs", true}, "Job"},
      {{"jobset.x-k8s.io", "v1alpha2", "jobsets", true}, "JobSet"},
      {{"kubeflow.org", "v1", "pytorchjobs", true}, "PyTorchJob"},
      {{"kubeflow.org", "v2beta1", "mpijobs", true}, "MPIJob"},
  };
  return kOwners;
}

OwnerObject DecodeOwnerObject(const Json& object, const OwnerKind& kind) {
  OwnerObject owner;
  owner.api_version = kind.resource.ApiVersion();
  owner.kind = kind.kind;
  const Json& metadata = Section(object, "metadata");
  owner.ns = Text(metadata, "namespace");
  owner.name = Text(metadata, "name");
  owner.uid = Text(metadata, "uid");
  owner.created = Text(metadata, "creationTimestamp");
  ReadController(metadata, owner);
  owner.gang_size = std::max(GangSizeOf(owner.kind, Section(object, "spec")), 1);
  return owner;
}

}  // namespace gpupool::op
