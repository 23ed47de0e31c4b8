#include "sandbox/rules/admission.h"

#include <algorithm>

#include "sandbox/api_error.h"
#include "sandbox/rules/builtin_rules.h"
#include "sandbox/rules/crd.h"
#include "sandbox/rules/deployment_rules.h"
#include "sandbox/rules/known_fields.h"
#include "sandbox/rules/pod_rules.h"
#include "sandbox/rules/secret_rules.h"
#include "sandbox/rules/webhook_config_rules.h"
#include "sandbox/store/events.h"
#include "sandbox/store/object_meta.h"
#include "sandbox/store/quantities.h"

namespace gpupool::sandbox {
namespace {

bool IsCore(const ResourceType& resource, const char* kind) {
  return resource.group.empty() && resource.kind == kind;
}

bool IsCrd(const ResourceType& resource) {
  return resource.group == "apiextensions.k8s.io" && resource.kind == "CustomResourceDefinition";
}

bool IsDeployment(const ResourceType& resource) {
  return resource.group == "apps" && resource.kind == "Deployment";
}

std::string NameOf(const Json& object) { return object["metadata"].value("name", ""); }

bool IsMutatingWebhookConfiguration(const ResourceType& resource) {
  return resource.group == "admissionregistration.k8s.io" &&
         resource.kind == "MutatingWebhookConfiguration";
}

// Defaults, then the errors a real server refuses the configuration for.
void AdmitWebhookConfiguration(const ResourceType& resource, Json& configuration) {
  DefaultMutatingWebhookConfiguration(configuration);
  auto errors = ValidateMutatingWebhookConfiguration(configuration);
  if (!errors.empty()) throw Invalid(QualifiedKind(resource), NameOf(configuration), errors);
}

// Unknown fields under fieldValidation=Strict: 400 for a create, update or
// apply (`bad_request` leads the message); for a merge or JSON patch, 422
// naming "patch" and showing the patched object, as the real patcher says it.
[[noreturn]] void ThrowStrictDecodingError(const std::vector<std::string>& unknown,
                                           const std::string& bad_request, const Json& object,
                                           const WriteOptions& options) {
  std::string message = "strict decoding error: ";
  for (size_t i = 0; i < unknown.size(); ++i) {
    message += (i ? ", " : "") + std::string("unknown field \"") + unknown[i] + "\"";
  }
  if (!options.json_patch) throw BadRequest(bad_request + message);
  throw Invalid("", "",
                {{"patch", "Invalid value: " + Json(object.dump()).dump() + ": " + message}});
}

}  // namespace

void Admission::CheckCustomResource(const ResourceType& resource, Json& object,
                                    WriteOptions& options, const Json* old,
                                    const std::string& subresource) {
  const Json given = options.strict_fields && options.json_patch ? object : Json();
  auto check = old && subresource == "status"
                   ? sandbox::CheckCustomResourceStatus(resource, object, *old)
                   : sandbox::CheckCustomResource(resource, object, old);
  if (!check.pruned.empty() && options.strict_fields) {
    ThrowStrictDecodingError(check.pruned, "", given, options);
  }
  for (const auto& path : check.pruned)
    options.warnings.push_back("unknown field \"" + path + "\"");
  if (!check.errors.empty()) throw Invalid(QualifiedKind(resource), NameOf(object), check.errors);
}

void Admission::CheckKnownFields(const ResourceType& resource, Json& object,
                                 WriteOptions& options) {
  const Json given = options.strict_fields && options.json_patch ? object : Json();
  const auto unknown = DropUnknownFields(resource, object);
  if (unknown.empty()) return;
  if (options.strict_fields) {
    ThrowStrictDecodingError(unknown,
                             resource.kind + " in version \"" + resource.version +
                                 "\" cannot be handled as a " + resource.kind + ": ",
                             given, options);
  }
  if (options.ignore_fields) return;
  for (const auto& path : unknown) options.warnings.push_back("unknown field \"" + path + "\"");
}

void Admission::OnCreate(const ResourceType& resource, Json& object, WriteOptions& options) {
  if (resource.IsCustom()) return CheckCustomResource(resource, object, options);
  CheckBuiltin(resource, object, options);
  if (IsCore(resource, "Pod")) {
    auto errors = PreparePodCreate(object);
    if (!errors.empty()) throw Invalid("Pod", NameOf(object), errors);
  } else if (IsCore(resource, "Namespace")) {
    object["spec"] = {{"finalizers", Json::array({"kubernetes"})}};
    object["status"] = {{"phase", "Active"}};
    auto& labels = object["metadata"]["labels"];
    labels["kubernetes.io/metadata.name"] = NameOf(object);
  } else if (IsCrd(resource)) {
    CheckCrdDecodes(object);
    auto errors = ValidateCrd(object);
    if (!errors.empty()) throw Invalid(QualifiedKind(resource), NameOf(object), errors);
    EstablishCrd(object);
  } else if (IsCore(resource, "Service")) {
    DefaultService(object);
  } else if (IsDeployment(resource)) {
    DefaultDeployment(object);
    auto errors = ValidateDeployment(object, nullptr);
    if (!errors.empty()) throw Invalid("Deployment.apps", NameOf(object), errors);
  } else if (resource.group == "scheduling.k8s.io" && resource.kind == "PriorityClass") {
    if (!object.contains("preemptionPolicy")) object["preemptionPolicy"] = "PreemptLowerPriority";
  } else if (IsCoreEvent(resource)) {
    CheckEvent(object, options, nullptr);
  } else if (IsMutatingWebhookConfiguration(resource)) {
    object["metadata"]["generation"] = 1;
    AdmitWebhookConfiguration(resource, object);
  } else if (IsCore(resource, "Secret")) {
    auto errors = ValidateSecret(object, nullptr);
    if (!errors.empty()) throw Invalid("Secret", NameOf(object), errors);
  }
}

// Rules shared by create and update of built-in kinds: what the real server's
// decoder refuses (400) comes before what its validation refuses (422).
void Admission::CheckBuiltin(const ResourceType& resource, Json& object, const WriteOptions&) {
  if (resource.group == "coordination.k8s.io" && resource.kind == "Lease") {
    CheckMicroTimes("Lease", object, {"spec.acquireTime", "spec.renewTime"});
    auto errors = ValidateLeaseSpec(object);
    if (!errors.empty()) throw Invalid("Lease.coordination.k8s.io", NameOf(object), errors);
  } else if (IsCoreEvent(resource)) {
    CheckMicroTimes("Event", object, {"eventTime", "series.lastObservedTime"});
  } else if (IsCore(resource, "ConfigMap")) {
    auto errors = ValidateConfigMapSize(object);
    if (!errors.empty()) throw Invalid("ConfigMap", NameOf(object), errors);
  } else if (IsCore(resource, "Secret")) {
    PrepareSecret(object);
  } else if (IsCore(resource, "Pod")) {
    NormalizePodResources(object);
  } else if (IsCore(resource, "Node")) {
    NormalizeNodeResources(object);
  } else if (IsDeployment(resource)) {
    CheckDeploymentTypes(object);
  }
}

void Admission::CheckEvent(const Json& event, const WriteOptions& options, const Json* old) {
  auto errors = ValidateEvent(event, options.via_events_api, old);
  if (errors.empty()) return;
  throw Invalid(options.via_events_api ? "Event.events.k8s.io" : "Event", NameOf(event), errors);
}

// A service gets its type and a cluster IP as the real allocator would give
// one (headless services keep "None").
void Admission::DefaultService(Json& service) {
  auto& spec = service["spec"];
  if (!spec.is_object()) spec = Json::object();
  if (!spec.contains("type")) spec["type"] = "ClusterIP";
  // An ExternalName service is a DNS alias: it gets no cluster IP.
  if (spec.value("type", "") == "ExternalName") return;
  if (!spec.contains("clusterIP")) {
    const uint32_t n = ++allocated_ips_;
    spec["clusterIP"] = "10.96." + std::to_string((n >> 8) & 0xFF) + "." + std::to_string(n & 0xFF);
  }
  spec["clusterIPs"] = Json::array({spec["clusterIP"]});
  if (spec.contains("ports") && spec["ports"].is_array()) {
    for (auto& port : spec["ports"]) {
      if (port.is_object() && !port.contains("protocol")) port["protocol"] = "TCP";
      if (port.is_object() && !port.contains("targetPort") && port.contains("port")) {
        port["targetPort"] = port["port"];
      }
    }
  }
}

void Admission::OnUpdate(const ResourceType& resource, const Json& old, Json& object,
                         const std::string& subresource, WriteOptions& options) {
  if (resource.IsCustom()) return CheckCustomResource(resource, object, options, &old, subresource);
  CheckBuiltin(resource, object, options);
  if (IsCore(resource, "Pod") && subresource.empty()) {
    auto errors = ValidatePodUpdate(old, object);
    if (!errors.empty()) throw Invalid("Pod", NameOf(object), errors);
    SyncSchedulingGatedCondition(object);
  } else if (IsCore(resource, "Namespace") && subresource.empty()) {
    object["spec"] = old.value("spec", Json::object());
  } else if (IsCrd(resource) && subresource.empty()) {
    CheckCrdDecodes(object);
    auto errors = ValidateCrd(object);
    if (!errors.empty()) throw Invalid(QualifiedKind(resource), NameOf(object), errors);
    if (object["spec"]["group"] != old["spec"]["group"] ||
        object["spec"]["names"]["plural"] != old["spec"]["names"]["plural"]) {
      throw Invalid(QualifiedKind(resource), NameOf(object),
                    {{"spec.group", "Invalid value: field is immutable"}});
    }
    EstablishCrd(object);
  } else if (IsDeployment(resource) && subresource.empty()) {
    DefaultDeployment(object);
    auto errors = ValidateDeployment(object, &old);
    if (!errors.empty()) throw Invalid("Deployment.apps", NameOf(object), errors);
  } else if (IsCoreEvent(resource)) {
    CheckEvent(object, options, &old);
  } else if (IsMutatingWebhookConfiguration(resource)) {
    AdmitWebhookConfiguration(resource, object);
  } else if (IsCore(resource, "Secret")) {
    auto errors = ValidateSecret(object, &old);
    if (!errors.empty()) throw Invalid("Secret", NameOf(object), errors);
  }
}

void Admission::AfterWrite(const ResourceType& resource, const Json& object) {
  if (!IsCrd(resource) || object["metadata"].contains("deletionTimestamp")) return;
  resources_.RemoveCrd(NameOf(object));
  for (auto& served : ServedResources(object)) resources_.Add(served);
}

void Admission::AfterDelete(const ResourceType& resource, const Json& object, Store& store) {
  if (!IsCrd(resource)) return;
  resources_.RemoveCrd(NameOf(object));
  const auto& spec = object["spec"];
  store.DropResource(spec.value("group", "") + "/" + spec["names"].value("plural", ""));
}

}  // namespace gpupool::sandbox
