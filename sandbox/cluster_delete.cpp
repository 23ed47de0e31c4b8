// Deletion as the real server does it: preconditions, graceful pod deletion,
// finalizers and the propagation policies' finalizers, plus the pod
// subresources that end in a write (binding) or a delete (eviction).
#include <algorithm>
#include <chrono>
#include <cmath>

#include "sandbox/api_error.h"
#include "sandbox/cluster.h"
#include "sandbox/store/events.h"
#include "sandbox/store/object_meta.h"
#include "sandbox/store/selectors.h"

namespace gpupool::sandbox {
namespace {

bool IsPod(const ResourceType& resource) {
  return resource.group.empty() && resource.kind == "Pod";
}

void AddFinalizer(Json& metadata, const std::string& finalizer) {
  auto& finalizers = metadata["finalizers"];
  if (!finalizers.is_array()) finalizers = Json::array();
  for (const auto& existing : finalizers) {
    if (existing == finalizer) return;
  }
  finalizers.push_back(finalizer);
}

// The grace period a pod deletion gets, 0 meaning "remove now".
int64_t PodGrace(const Json& pod, const DeleteOptions& options) {
  const auto& spec = pod.value("spec", Json::object());
  const std::string phase = pod.value("status", Json::object()).value("phase", "");
  if (spec.value("nodeName", "").empty()) return 0;  // no kubelet has to stop it
  if (phase == "Succeeded" || phase == "Failed") return 0;
  int64_t grace = options.grace_seconds.value_or(spec.value("terminationGracePeriodSeconds", 30));
  return grace < 0 ? 0 : grace;
}

// An int or "N%" of `total` (rounded up, as the disruption controller does).
int64_t Scaled(const Json& value, int64_t total) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    const double percent = std::atof(text.c_str());
    return static_cast<int64_t>(std::ceil(percent * static_cast<double>(total) / 100.0));
  }
  return 0;
}

// A binding's annotations are copied onto the pod it binds (what a scheduler
// tells the kubelet), checked as any object's annotations are.
const Json* BindingAnnotations(const Json& binding, const std::string& name) {
  if (!binding.is_object() || !binding.contains("metadata")) return nullptr;
  const Json& metadata = binding["metadata"];
  if (!metadata.is_object() || !metadata.contains("annotations")) return nullptr;
  const Json& annotations = metadata["annotations"];
  if (annotations.is_null()) return nullptr;
  const auto errors = ValidateMetadataMaps(Json{{"annotations", annotations}});
  if (!errors.empty()) throw Invalid("Binding", name, errors);
  return &annotations;
}

}  // namespace

Json Cluster::Delete(const ResourceType& resource, const std::string& ns, const std::string& name,
                     const DeleteOptions& options) {
  if (!options.propagation.empty() && options.propagation != "Orphan" &&
      options.propagation != "Background" && options.propagation != "Foreground") {
    throw Invalid("DeleteOptions", "",
                  {{"propagationPolicy", "Unsupported value: \"" + options.propagation +
                                             "\": supported values: \"Orphan\", "
                                             "\"Background\", \"Foreground\""}});
  }
  if (IsEventsApiEvent(resource)) {
    return EventFromCore(Delete(*Resource("", "v1", "events"), ns, name, options));
  }
  auto lock = store_.Lock();
  Json old = ParseStored(resource, ns, name);
  const auto& metadata = old["metadata"];
  if (!options.uid_precondition.empty() && options.uid_precondition != metadata.value("uid", "")) {
    throw Conflict(resource.QualifiedName(), name,
                   "Precondition failed: UID in precondition: " + options.uid_precondition +
                       ", UID in object meta: " + metadata.value("uid", ""));
  }
  if (!options.rv_precondition.empty() &&
      options.rv_precondition != metadata.value("resourceVersion", "")) {
    throw Conflict(
        resource.QualifiedName(), name,
        "Precondition failed: ResourceVersion in precondition: " + options.rv_precondition +
            ", ResourceVersion in object meta: " + metadata.value("resourceVersion", ""));
  }
  return DeleteLocked(resource, old, options);
}

Json Cluster::DeleteLocked(const ResourceType& resource, const Json& old,
                           const DeleteOptions& options) {
  Json object = old;
  auto& metadata = object["metadata"];
  int64_t grace = IsPod(resource) ? PodGrace(old, options) : 0;
  if (metadata.contains("deletionTimestamp")) {
    // Already terminating: only a shorter grace period changes anything.
    const int64_t current = metadata.value("deletionGracePeriodSeconds", 0);
    if (!IsPod(resource) || grace >= current) return old;
  }
  if (options.propagation == "Foreground") AddFinalizer(metadata, "foregroundDeletion");
  if (options.propagation == "Orphan") AddFinalizer(metadata, "orphan");
  bool waits = metadata.contains("finalizers") && !metadata["finalizers"].empty();
  if (resource.group.empty() && resource.kind == "Namespace") {
    // The namespace controller empties it, then removes it.
    object["status"]["phase"] = "Terminating";
    waits = true;
  }
  if (grace == 0 && !waits) return RemoveNow(resource, std::move(object), options.dry_run);
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(grace);
  metadata["deletionTimestamp"] = FormatTime(deadline);
  metadata["deletionGracePeriodSeconds"] = grace;
  return Commit(resource, std::move(object), options.dry_run);
}

Json Cluster::Bind(const std::string& ns, const std::string& name, const Json& binding,
                   ObjectPtr* stored) {
  const auto pods = Resource("", "v1", "pods");
  const std::string node = binding.value("target", Json::object()).value("name", "");
  if (node.empty()) throw Invalid("Binding", name, {{"target.name", "Required value"}});
  const Json* annotations = BindingAnnotations(binding, name);
  auto bind = [&](const ObjectPtr& current) {
    Json pod = current->Parsed();
    BindPod(pod, name, node, annotations);
    return pod;
  };
  WriteFromStored(*pods, ns, name, bind,
                  [&](Json& pod) { return Commit(*pods, std::move(pod), false, stored); });
  return SuccessStatus();
}

void Cluster::BindPod(Json& pod, const std::string& name, const std::string& node,
                      const Json* annotations) {
  const std::string bound = pod["spec"].value("nodeName", "");
  if (!bound.empty()) {
    throw Conflict("pods/binding", name,
                   "pod " + name + " is already assigned to node \"" + bound + "\"");
  }
  if (pod["metadata"].contains("deletionTimestamp")) {
    throw Conflict("pods/binding", name, "pod " + name + " is being deleted, cannot be assigned");
  }
  if (!pod["spec"].value("schedulingGates", Json::array()).empty()) {
    throw Conflict("pods/binding", name, "pod " + name + " has scheduling gates");
  }
  pod["spec"]["nodeName"] = node;
  if (annotations)
    for (const auto& [key, value] : annotations->items())
      pod["metadata"]["annotations"][key] = value;
  auto& conditions = pod["status"]["conditions"];
  if (!conditions.is_array()) conditions = Json::array();
  EraseIf(conditions, [](const Json& c) { return c.value("type", "") == "PodScheduled"; });
  conditions.push_back({{"type", "PodScheduled"},
                        {"status", "True"},
                        {"lastProbeTime", nullptr},
                        {"lastTransitionTime", NowString()}});
}

bool Cluster::PdbForbidsEviction(const Json& pod) {
  const std::string ns = pod["metadata"].value("namespace", "");
  const Json labels = pod["metadata"].value("labels", Json::object());
  const auto& pdbs = store_.Objects("policy/poddisruptionbudgets");
  for (auto it = pdbs.lower_bound(ns + "/"); it != pdbs.end() && it->second->ns == ns; ++it) {
    const Json pdb = it->second->Parsed();
    const Json selector = pdb["spec"].value("selector", Json::object());
    if (!MatchesLabelSelector(selector, labels)) continue;
    int64_t expected = 0, healthy = 0;
    const auto& pods = store_.Objects("/pods");
    for (auto p = pods.lower_bound(ns + "/"); p != pods.end() && p->second->ns == ns; ++p) {
      const Json other = p->second->Parsed();
      if (!MatchesLabelSelector(selector, other["metadata"].value("labels", Json::object()))) {
        continue;
      }
      ++expected;
      const bool running = other.value("status", Json::object()).value("phase", "") == "Running";
      if (running && !other["metadata"].contains("deletionTimestamp")) ++healthy;
    }
    if (pod.value("status", Json::object()).value("phase", "") != "Running") continue;
    const auto& spec = pdb["spec"];
    if (spec.contains("minAvailable") && healthy - 1 < Scaled(spec["minAvailable"], expected)) {
      return true;
    }
    if (spec.contains("maxUnavailable") &&
        expected - healthy + 1 > Scaled(spec["maxUnavailable"], expected)) {
      return true;
    }
  }
  return false;
}

Json Cluster::Evict(const std::string& ns, const std::string& name, const Json& eviction) {
  const auto pods = Resource("", "v1", "pods");
  const Json metadata = eviction.is_object() ? eviction.value("metadata", Json::object()) : Json();
  if (!metadata.is_object()) throw BadRequest("the Eviction body must be an object with metadata");
  // Checked before the pod is looked up, as the real eviction handler does.
  if (metadata.value("name", "") != name) {
    throw BadRequest("name in URL does not match name in Eviction object");
  }
  if (const std::string body_ns = metadata.value("namespace", "");
      !body_ns.empty() && body_ns != ns) {
    throw BadRequest(
        "the namespace of the provided object does not match the namespace sent on the request");
  }
  DeleteOptions options;
  const Json delete_options = eviction.value("deleteOptions", Json::object());
  if (delete_options.contains("gracePeriodSeconds") &&
      delete_options["gracePeriodSeconds"].is_number_integer()) {
    options.grace_seconds = delete_options["gracePeriodSeconds"].get<int64_t>();
  }
  options.dry_run = !delete_options.value("dryRun", Json::array()).empty();
  auto lock = store_.Lock();
  Json pod = ParseStored(*pods, ns, name);
  if (pod["metadata"].contains("deletionTimestamp")) return SuccessStatus();
  if (PdbForbidsEviction(pod)) {
    ApiError error(429, "TooManyRequests",
                   "Cannot evict pod as it would violate the pod's disruption budget.",
                   Json{{"causes", Json::array({{{"reason", "DisruptionBudget"},
                                                 {"message",
                                                  "the disruption budget needs more "
                                                  "healthy pods"}}})}});
    throw error;
  }
  DeleteLocked(*pods, pod, options);
  return SuccessStatus();
}

}  // namespace gpupool::sandbox
