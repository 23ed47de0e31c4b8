#include "gpupool/api/training_job.h"

#include "gpupool/api/pod.h"
#include "rules.h"
#include "training_job_status.h"

namespace gpupool::api {
namespace {

constexpr int64_t kMaxGpusPerReplica = 64;

// Whether a pod asking for `resource` may be given a GPU or part of one (a MIG
// slice, a vendor's shared device): the extended resources of the GPU vendors.
bool IsDeviceResource(const std::string& resource) {
  for (const char* vendor : {"nvidia.com/", "amd.com/", "gpu.intel.com/", "habana.ai/"})
    if (resource.rfind(vendor, 0) == 0) return true;
  return false;
}

constexpr char kUncharged[] =
    "must not be set: a replica's GPUs are gpusPerReplica, given to its first container; "
    "any other device request would hold devices its project is not charged for";

// Devices a container asks for outside gpusPerReplica: every device resource of
// an init container or native sidecar, and of a container every one but
// nvidia.com/gpu (which gpupool sets from gpusPerReplica), each an error at
// its field; and dynamic resource claims, which gpupool cannot count.
void RefuseUnchargedDevices(json::Reader& pod, const char* list, bool init) {
  const Json* containers = pod.Array(list);
  if (!containers) return;
  for (size_t i = 0; i < containers->size(); ++i) {
    const Json& container = (*containers)[i];
    if (!container.is_object() || !container.contains("resources")) continue;
    const Json& resources = container["resources"];
    if (!resources.is_object()) continue;
    const std::string path = json::Child(pod.PathOf(list), i) + ".resources";
    if (resources.contains("claims")) pod.errors().push_back({path + ".claims", kUncharged});
    for (const char* kind : {"limits", "requests"}) {
      if (!resources.contains(kind) || !resources[kind].is_object()) continue;
      for (const auto& [resource, amount] : resources[kind].items()) {
        if (!IsDeviceResource(resource) || (!init && resource == kGpuResource)) continue;
        pod.errors().push_back({path + "." + kind + "[" + resource + "]", kUncharged});
      }
    }
  }
}

void RefuseUnchargedDevices(json::Reader& pod) {
  RefuseUnchargedDevices(pod, "initContainers", true);
  RefuseUnchargedDevices(pod, "containers", false);
  if (pod.Has("resourceClaims")) pod.Error("resourceClaims", kUncharged);
  if (pod.Has("ephemeralContainers"))
    pod.Error("ephemeralContainers", "must not be set: a pod is created without them");
}

// Returns the template when it is an object; reports what is wrong inside it.
const Json* ReadPodTemplate(json::Reader& spec) {
  const Json* pod_template = spec.Object("template", json::Presence::kRequired);
  if (!pod_template) return nullptr;
  json::Reader reader(*pod_template, spec, "template");
  reader.Object("metadata");
  const Json* pod_spec = reader.Object("spec", json::Presence::kRequired);
  if (!pod_spec) return pod_template;
  json::Reader pod(*pod_spec, reader, "spec");
  // gpupool places each replica; a pod bound by its template would run where
  // gpupool did not count it.
  if (pod.Has("nodeName")) {
    pod.Error("nodeName",
              "must not be set: gpupool chooses each replica's node (use the "
              "queue's nodeSelector, or the template's nodeSelector or affinity)");
  }
  RefuseUnchargedDevices(pod);
  const Json* containers = pod.Array("containers", json::Presence::kRequired);
  if (!containers) return pod_template;
  if (containers->empty()) pod.Error("containers", "must have at least 1 item");
  for (size_t i = 0; i < containers->size(); ++i) {
    if (!(*containers)[i].is_object()) {
      spec.errors().push_back({json::Child(pod.PathOf("containers"), i),
                               "must be an object, got " + json::TypeName((*containers)[i])});
    }
  }
  return pod_template;
}

std::optional<TopologySpec> ReadTopology(json::Reader& spec) {
  const Json* topology = spec.Object("topology");
  if (!topology) return std::nullopt;
  json::Reader reader(*topology, spec, "topology");
  TopologySpec result;
  result.key = reader.String("key", json::Presence::kRequired).value_or("");
  if (reader.Has("key") && result.key.empty()) reader.Error("key", "must not be empty");
  if (auto mode = ReadEnum(reader, "mode", {"Required", "Preferred"})) {
    result.mode = *mode == "Required" ? TopologyMode::kRequired : TopologyMode::kPreferred;
  }
  return result;
}

// The longest checkpoint path accepted (the CRD's maxLength says the same).
constexpr std::size_t kMaxCheckpointPath = 1024;

std::optional<CheckpointSpec> ReadCheckpoint(json::Reader& spec) {
  const Json* checkpoint = spec.Object("checkpoint");
  if (!checkpoint) return std::nullopt;
  json::Reader reader(*checkpoint, spec, "checkpoint");
  CheckpointSpec result;
  result.on_preemption = reader.Bool("onPreemption").value_or(false);
  const std::optional<std::string> path = reader.String("path");
  result.path = path.value_or("");
  if (path && (path->empty() || path->front() != '/')) {
    reader.Error("path", "must be an absolute path (start with /)");
  } else if (result.path.size() > kMaxCheckpointPath) {
    reader.Error("path", "must be at most 1024 characters");
  } else if (result.on_preemption && !reader.Has("path")) {
    reader.Error("path", "is required when onPreemption is true");
  }
  return result;
}

WorkloadClass ReadWorkloadClass(json::Reader& spec) {
  auto name = ReadEnum(spec, "workloadClass", {"Train", "Build", "Inference"});
  if (name == "Build") return WorkloadClass::kBuild;
  if (name == "Inference") return WorkloadClass::kInference;
  return WorkloadClass::kTrain;
}

// The CRD's cross-field rules on replicas and gpusPerReplica. `gpus_read` is
// false when gpusPerReplica is absent or was refused as it was read: its error
// is reported then, and judging the stand-in 0 would add a second, wrong one.
void CheckGang(json::Reader& spec, const TrainingJobSpec& job, bool gpus_read) {
  if (job.min_replicas && *job.min_replicas > job.replicas) {
    spec.Error("minReplicas", "must be <= replicas");
  }
  if (!gpus_read) return;
  const int64_t milli = job.gpus_per_replica.milli;
  if (milli <= 0) {
    spec.Error("gpusPerReplica", "must be > 0");
  } else if (milli > kMaxGpusPerReplica * 1000) {
    // A replica runs on one node; no node has more devices than this.
    spec.Error("gpusPerReplica", "must be <= " + std::to_string(kMaxGpusPerReplica));
  } else if (milli % 1000 != 0 && (milli > 1000 || job.replicas != 1)) {
    spec.Error("gpusPerReplica",
               "a fractional gpusPerReplica must be below 1 and needs replicas: 1");
  }
}

TrainingJobSpec ReadTrainingJobSpec(json::Reader& spec) {
  TrainingJobSpec result;
  result.queue = spec.String("queue", json::Presence::kRequired).value_or("");
  if (spec.Has("queue") && result.queue.empty()) spec.Error("queue", "must not be empty");
  result.workload_class = ReadWorkloadClass(spec);
  result.priority = spec.Int32("priority").value_or(0);
  auto replicas = spec.Int32("replicas");
  if (replicas && *replicas < 1) spec.Error("replicas", "must be >= 1");
  result.replicas = replicas && *replicas >= 1 ? *replicas : 1;
  result.min_replicas = spec.Int32("minReplicas");
  if (result.min_replicas && *result.min_replicas < 1) {
    spec.Error("minReplicas", "must be >= 1");
    result.min_replicas.reset();
  }
  const auto gpus = spec.QuantityField("gpusPerReplica", json::Presence::kRequired);
  result.gpus_per_replica = gpus.value_or(json::Quantity{});
  result.topology = ReadTopology(spec);
  if (const Json* pod_template = ReadPodTemplate(spec)) result.pod_template = *pod_template;
  auto backoff = spec.Int32("backoffLimit");
  if (backoff && *backoff < 0) spec.Error("backoffLimit", "must be >= 0");
  result.backoff_limit = backoff && *backoff >= 0 ? *backoff : 3;
  result.active_deadline_seconds = ReadMinimum(spec, "activeDeadlineSeconds", 1);
  result.checkpoint_interval_seconds = ReadMinimum(spec, "checkpointIntervalSeconds", 1);
  result.checkpoint = ReadCheckpoint(spec);
  result.expected_runtime_seconds = ReadMinimum(spec, "expectedRuntimeSeconds", 1);
  result.suspend = spec.Bool("suspend").value_or(false);
  CheckGang(spec, result, gpus.has_value());
  return result;
}

Json SpecToJson(const TrainingJobSpec& spec, Json json) {
  if (!json.is_object()) json = Json::object();
  json["queue"] = spec.queue;
  json["workloadClass"] = WorkloadClassName(spec.workload_class);
  json["priority"] = spec.priority;
  json["replicas"] = spec.replicas;
  SetOrErase(json, "minReplicas", spec.min_replicas);
  json["gpusPerReplica"] = spec.gpus_per_replica.ToJson();
  if (spec.topology) {
    json["topology"] = {
        {"key", spec.topology->key},
        {"mode", spec.topology->mode == TopologyMode::kRequired ? "Required" : "Preferred"}};
  } else {
    json.erase("topology");
  }
  json["template"] = spec.pod_template;
  json["backoffLimit"] = spec.backoff_limit;
  SetOrErase(json, "activeDeadlineSeconds", spec.active_deadline_seconds);
  SetOrErase(json, "checkpointIntervalSeconds", spec.checkpoint_interval_seconds);
  if (spec.checkpoint) {
    Json checkpoint = {{"onPreemption", spec.checkpoint->on_preemption}};
    if (!spec.checkpoint->path.empty()) checkpoint["path"] = spec.checkpoint->path;
    json["checkpoint"] = std::move(checkpoint);
  } else {
    json.erase("checkpoint");
  }
  SetOrErase(json, "expectedRuntimeSeconds", spec.expected_runtime_seconds);
  if (spec.suspend) {
    json["suspend"] = true;
  } else if (json.contains("suspend")) {
    json["suspend"] = false;
  }
  return json;
}

// A gang's name names its headless Service and its pods' subdomain (an RFC
// 1035 label), and with "-<replica>" each pod's hostname (at most 63 characters).
void CheckGangName(const TrainingJob& job, json::FieldErrors& errors) {
  const std::string& name = job.metadata.name;
  if (job.spec.replicas <= 1 || name.size() > 63 || !IsDnsSubdomain(name)) return;
  if (!IsDns1035Label(name)) {
    errors.push_back({"metadata.name",
                      "a job of more than one replica names its headless Service and its pods' "
                      "subdomain, so it must be an RFC 1035 label (a-z, 0-9, '-', starting with "
                      "a letter, no '.'), got \"" +
                          name + "\""});
    return;
  }
  const std::size_t longest = std::to_string(job.spec.replicas - 1).size() + 1;
  if (name.size() + longest > 63) {
    errors.push_back({"metadata.name",
                      "a gang's pods' hostnames are its name and \"-<replica>\", "
                      "at most 63 characters: with " +
                          std::to_string(job.spec.replicas) +
                          " replicas the name may have at most " + std::to_string(63 - longest) +
                          " characters, it has " + std::to_string(name.size())});
  }
}

}  // namespace

const char* WorkloadClassName(WorkloadClass workload_class) {
  switch (workload_class) {
    case WorkloadClass::kBuild:
      return "Build";
    case WorkloadClass::kInference:
      return "Inference";
    default:
      return "Train";
  }
}

bool IsPreemptible(WorkloadClass workload_class) { return workload_class == WorkloadClass::kTrain; }

TrainingJob DecodeTrainingJob(const Json& object, json::FieldErrors& errors, RawJson raw) {
  TrainingJob job =
      DecodeKind<TrainingJob>(object, errors, "TrainingJob", json::Presence::kRequired,
                              ReadTrainingJobSpec, ReadTrainingJobStatus, raw);
  CheckGangName(job, errors);
  return job;
}

TrainingJobStatus DecodeTrainingJobStatus(const Json& status, json::FieldErrors& errors) {
  json::Reader reader(status, "status", errors);
  return ReadTrainingJobStatus(reader);
}

Json ToJson(const TrainingJob& job) {
  Json json = ObjectJsonBase(job.raw, "TrainingJob", job.metadata);
  json["spec"] = SpecToJson(job.spec, json.value("spec", Json::object()));
  SetOrEraseObject(
      json, "status",
      Overlay(json.value("status", Json::object()), TrainingJobStatusToJson(job.status),
              {"phase", "project", "conditions", "queuedTime", "admittedTime", "startTime",
               "completionTime", "preemptionCount", "restartCount", "allocatedGpu", "requestedGpu",
               "admittedQueue", "overQuota", "placement", "observedGeneration"}));
  return json;
}

}  // namespace gpupool::api
