#include "pod_template.h"

#include <algorithm>

#include "priority_classes.h"

namespace gpupool::op::internal {
namespace {

Json AnnotationEnv(const std::string& name, const std::string& annotation) {
  return {
      {"name", name},
      {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.annotations['" + annotation + "']"}}}}}};
}

// One reference, to the job as controller: the garbage collector removes the
// job's pods and Service with it.
Json OwnerReferences(const JobRecord& job) {
  const auto& meta = job.job().metadata;
  return Json::array({{{"apiVersion", api::kApiVersion},
                       {"kind", "TrainingJob"},
                       {"name", meta.name},
                       {"uid", meta.uid},
                       {"controller", true},
                       {"blockOwnerDeletion", true}}});
}

Json LiteralEnv(const std::string& name, const std::string& value) {
  return {{"name", name}, {"value", value}};
}

// Where the job saves its state, and, in pods that replace preempted or failed
// ones, where it resumes from (docs/api.md, spec.checkpoint).
void AddCheckpointEnv(const JobRecord& job, std::vector<Json>& env) {
  const int32_t replaced = job.status.restart_count + job.status.preemption_count;
  env.push_back(LiteralEnv("GPUPOOL_RESTART_COUNT", std::to_string(replaced)));
  env.push_back(
      LiteralEnv("GPUPOOL_PREEMPTION_COUNT", std::to_string(job.status.preemption_count)));
  const auto& checkpoint = job.job().spec.checkpoint;
  if (!checkpoint || checkpoint->path.empty()) return;
  env.push_back(LiteralEnv("GPUPOOL_CHECKPOINT_PATH", checkpoint->path));
  if (replaced > 0) env.push_back(LiteralEnv("GPUPOOL_RESUME_FROM", checkpoint->path));
}

std::vector<Json> ReplicaEnv(const CycleState& state, const JobRecord& job, int replica) {
  const auto& spec = job.job().spec;
  std::vector<Json> env;
  AddCheckpointEnv(job, env);
  if (spec.replicas > 1) {
    env.push_back(AnnotationEnv("WORLD_SIZE", kWorldSizeAnnotation));
    env.push_back(LiteralEnv("RANK", std::to_string(replica)));
    env.push_back(LiteralEnv("MASTER_ADDR", PodName(job, 0) + "." + job.name()));
    env.push_back(LiteralEnv("MASTER_PORT", std::to_string(state.options.master_port)));
  }
  if (spec.IsFractional()) {
    env.push_back(AnnotationEnv("NVIDIA_VISIBLE_DEVICES", kDeviceAnnotation));
    env.push_back(AnnotationEnv("GPUPOOL_GPU_FRACTION", kFractionAnnotation));
    env.push_back(LiteralEnv("TF_FORCE_GPU_ALLOW_GROWTH", "true"));
  }
  return env;
}

// Our variables replace any of the same name the template sets.
void AddEnv(Json& container, const std::vector<Json>& env) {
  Json list = Json::array();
  const Json old = container.value("env", Json::array());
  for (const Json& item : old.is_array() ? old : Json::array()) {
    const bool replaced = std::any_of(env.begin(), env.end(), [&](const Json& variable) {
      return item.is_object() && item.value("name", "") == variable["name"];
    });
    if (!replaced) list.push_back(item);
  }
  for (const Json& variable : env) list.push_back(variable);
  container["env"] = std::move(list);
}

void SetGpuResources(Json& containers, std::int64_t gpus) {
  for (std::size_t i = 0; i < containers.size(); ++i) {
    Json& resources = containers[i]["resources"];
    if (!resources.is_object()) resources = Json::object();
    for (const char* kind : {"requests", "limits"}) {
      if (resources.contains(kind) && resources[kind].is_object())
        resources[kind].erase(api::kGpuResource);
      if (i == 0 && gpus > 0) resources[kind][api::kGpuResource] = std::to_string(gpus);
      if (resources.contains(kind) && resources[kind].empty()) resources.erase(kind);
    }
  }
}

Json PodMetadata(const JobRecord& job, int replica, const Json& template_metadata) {
  const auto& meta = job.job().metadata;
  Json labels = template_metadata.value("labels", Json::object());
  labels[kJobLabel] = meta.name;
  labels[kProjectLabel] = job.project;
  labels[kQueueLabel] = job.job().spec.queue;
  labels[kReplicaLabel] = std::to_string(replica);
  Json annotations = template_metadata.value("annotations", Json::object());
  annotations[kWorldSizeAnnotation] = std::to_string(job.job().spec.replicas);
  return {{"name", PodName(job, replica)},
          {"namespace", meta.namespace_},
          {"labels", labels},
          {"annotations", annotations},
          {"ownerReferences", OwnerReferences(job)}};
}

}  // namespace

std::string PointerToken(std::string_view key) {
  std::string token;
  for (char c : key) {
    if (c == '~') {
      token += "~0";
    } else if (c == '/') {
      token += "~1";
    } else {
      token += c;
    }
  }
  return token;
}

std::string PodName(const JobRecord& job, int replica) {
  return job.name() + "-" + std::to_string(replica);
}

bool IsReplicaPodName(const std::string& pod_name, const std::string& job, std::int32_t replica) {
  const std::string number = std::to_string(replica);
  return pod_name.size() == job.size() + 1 + number.size() &&
         pod_name.compare(0, job.size(), job) == 0 && pod_name[job.size()] == '-' &&
         pod_name.compare(job.size() + 1, number.size(), number) == 0;
}

Json BuildPod(const CycleState& state, const JobRecord& job, int replica) {
  const auto& spec = job.job().spec;
  const Json& tmpl = spec.pod_template;
  Json pod_spec = tmpl.value("spec", Json::object());
  Json gates = pod_spec.value("schedulingGates", Json::array());
  gates.push_back({{"name", kAdmissionGate}});
  pod_spec["schedulingGates"] = gates;
  pod_spec["priorityClassName"] = PriorityClassName(state.options, spec.workload_class);
  pod_spec.erase("priority");
  // gpupool restarts and requeues jobs itself; a pod that restarts in place would
  // never let its job see the failure.
  pod_spec["restartPolicy"] = "Never";
  if (spec.replicas > 1 && PodName(job, spec.replicas - 1).size() <= 63) {
    pod_spec["hostname"] = PodName(job, replica);
    pod_spec["subdomain"] = job.name();
  }
  Json& containers = pod_spec["containers"];
  if (!containers.is_array()) containers = Json::array();
  SetGpuResources(containers, spec.IsFractional() ? 0 : spec.gpus_per_replica.milli / 1000);
  const auto env = ReplicaEnv(state, job, replica);
  for (Json& container : containers) AddEnv(container, env);
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", PodMetadata(job, replica, tmpl.value("metadata", Json::object()))},
          {"spec", pod_spec}};
}

namespace {

// What a replica learns when it is released to its place.
std::vector<std::pair<std::string, std::string>> ReleaseAnnotations(
    const JobRecord& job, const std::string& shared_device) {
  std::vector<std::pair<std::string, std::string>> annotations = {
      {kWorldSizeAnnotation, std::to_string(job.status.placement.size())}};
  if (job.job().spec.IsFractional()) {
    annotations.emplace_back(kDeviceAnnotation, shared_device);
    annotations.emplace_back(kFractionAnnotation,
                             json::FormatDecimal(job.job().spec.gpus_per_replica.milli));
  }
  return annotations;
}

}  // namespace

Json BuildReleasedPod(const CycleState& state, const JobRecord& job,
                      const api::ReplicaPlacement& placed, const std::string& shared_device) {
  Json pod = BuildPod(state, job, placed.replica);
  Json& spec = pod["spec"];
  Json& gates = spec["schedulingGates"];
  gates.erase(
      std::remove_if(gates.begin(), gates.end(),
                     [](const Json& gate) { return gate.value("name", "") == kAdmissionGate; }),
      gates.end());
  if (gates.empty()) spec.erase("schedulingGates");
  if (!spec["nodeSelector"].is_object()) spec["nodeSelector"] = Json::object();
  spec["nodeSelector"][kHostnameLabel] = placed.node;
  for (const auto& [key, value] : ReleaseAnnotations(job, shared_device))
    pod["metadata"]["annotations"][key] = value;
  return pod;
}

Json UngatePatch(const PodView& pod) {
  const std::string gate = "/spec/schedulingGates/" + std::to_string(pod.gate_index);
  return Json::array({{{"op", "test"}, {"path", "/metadata/uid"}, {"value", pod.uid}},
                      {{"op", "test"}, {"path", gate + "/name"}, {"value", kAdmissionGate}},
                      {{"op", "remove"}, {"path", gate}}});
}

Json ReleasePatch(const JobRecord& job, const PodView& pod, const api::ReplicaPlacement& placed,
                  const std::string& shared_device) {
  Json patch = UngatePatch(pod);
  if (pod.has_node_selector) {
    patch.push_back({{"op", "add"},
                     {"path", "/spec/nodeSelector/" + PointerToken(kHostnameLabel)},
                     {"value", placed.node}});
  } else {
    patch.push_back({{"op", "add"},
                     {"path", "/spec/nodeSelector"},
                     {"value", {{kHostnameLabel, placed.node}}}});
  }
  for (const auto& [key, value] : ReleaseAnnotations(job, shared_device))
    patch.push_back(
        {{"op", "add"}, {"path", "/metadata/annotations/" + PointerToken(key)}, {"value", value}});
  return patch;
}

Json BuildGangService(const JobRecord& job) {
  const auto& meta = job.job().metadata;
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata",
           {{"name", meta.name},
            {"namespace", meta.namespace_},
            {"labels", {{kJobLabel, meta.name}}},
            {"ownerReferences", OwnerReferences(job)}}},
          {"spec",
           {{"clusterIP", "None"},
            {"selector", {{kJobLabel, meta.name}}},
            {"publishNotReadyAddresses", true}}}};
}

}  // namespace gpupool::op::internal
