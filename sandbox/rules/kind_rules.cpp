#include "sandbox/rules/kind_rules.h"

#include <algorithm>
#include <vector>

#include "sandbox/api_error.h"
#include "sandbox/rules/admission.h"
#include "sandbox/rules/builtin_rules.h"
#include "sandbox/rules/crd.h"
#include "sandbox/rules/deployment_rules.h"
#include "sandbox/rules/pod_rules.h"
#include "sandbox/rules/secret_rules.h"
#include "sandbox/rules/webhook_config_rules.h"
#include "sandbox/store/events.h"
#include "sandbox/store/object_meta.h"
#include "sandbox/store/quantities.h"
#include "sandbox/store/store.h"

namespace gpupool::sandbox {
namespace {

// 422 Invalid naming the object by its kind, when there are errors.
void ThrowIfInvalid(const AdmissionContext& context, const Json& object,
                    const json::FieldErrors& errors) {
  if (!errors.empty())
    throw Invalid(QualifiedKind(context.resource), NameInMetadata(object), errors);
}

void DecodeLease(Json& lease, const AdmissionContext& context) {
  CheckMicroTimes("Lease", lease, {"spec.acquireTime", "spec.renewTime"});
  ThrowIfInvalid(context, lease, ValidateLeaseSpec(lease));
}

void DecodeEvent(Json& event, const AdmissionContext&) {
  CheckMicroTimes("Event", event, {"eventTime", "series.lastObservedTime"});
}

void DecodeConfigMap(Json& config_map, const AdmissionContext& context) {
  ThrowIfInvalid(context, config_map, ValidateConfigMapSize(config_map));
}

void DecodeSecret(Json& secret, const AdmissionContext&) { PrepareSecret(secret); }

void DecodePod(Json& pod, const AdmissionContext&) { NormalizePodResources(pod); }

void DecodeNode(Json& node, const AdmissionContext&) { NormalizeNodeResources(node); }

void DecodeDeployment(Json& deployment, const AdmissionContext&) {
  CheckDeploymentTypes(deployment);
}

void CreatePod(Json& pod, const AdmissionContext& context) {
  ThrowIfInvalid(context, pod, PreparePodCreate(pod));
}

void UpdatePod(const Json& old, Json& pod, const std::string& subresource,
               const AdmissionContext& context) {
  if (!subresource.empty()) return;
  ThrowIfInvalid(context, pod, ValidatePodUpdate(old, pod));
  SyncSchedulingGatedCondition(pod);
}

void CreateNamespace(Json& name_space, const AdmissionContext&) { DefaultNamespace(name_space); }

// Only the namespace controller changes a namespace's finalizers.
void UpdateNamespace(const Json& old, Json& name_space, const std::string& subresource,
                     const AdmissionContext&) {
  if (subresource.empty()) name_space["spec"] = old.value("spec", Json::object());
}

void CheckCrd(Json& crd, const AdmissionContext& context) {
  CheckCrdDecodes(crd);
  ThrowIfInvalid(context, crd, ValidateCrd(crd));
}

void CreateCrd(Json& crd, const AdmissionContext& context) {
  CheckCrd(crd, context);
  EstablishCrd(crd);
}

void UpdateCrd(const Json& old, Json& crd, const std::string& subresource,
               const AdmissionContext& context) {
  if (!subresource.empty()) return;
  CheckCrd(crd, context);
  if (crd["spec"]["group"] != old["spec"]["group"] ||
      crd["spec"]["names"]["plural"] != old["spec"]["names"]["plural"]) {
    throw Invalid(QualifiedKind(context.resource), NameInMetadata(crd),
                  {{"spec.group", "Invalid value: field is immutable"}});
  }
  EstablishCrd(crd);
}

// A stored CRD serves its resources from now on, unless it is being deleted.
void ServeCrdResources(const Json& crd, ResourceRegistry& resources) {
  if (crd["metadata"].contains("deletionTimestamp")) return;
  resources.RemoveCrd(NameInMetadata(crd));
  for (auto& served : ServedResources(crd)) resources.Add(served);
}

// A removed CRD's resources are no longer served, and their objects are gone.
void DropCrdResources(const Json& crd, ResourceRegistry& resources, Store& store) {
  resources.RemoveCrd(NameInMetadata(crd));
  const auto& spec = crd["spec"];
  store.DropResource(spec.value("group", "") + "/" + spec["names"].value("plural", ""));
}

void CreateService(Json& service, const AdmissionContext& context) {
  DefaultService(service, context.allocated_ips);
}

void CreateDeployment(Json& deployment, const AdmissionContext& context) {
  DefaultDeployment(deployment);
  ThrowIfInvalid(context, deployment, ValidateDeployment(deployment, nullptr));
}

void UpdateDeployment(const Json& old, Json& deployment, const std::string& subresource,
                      const AdmissionContext& context) {
  if (!subresource.empty()) return;
  DefaultDeployment(deployment);
  ThrowIfInvalid(context, deployment, ValidateDeployment(deployment, &old));
}

void CreatePriorityClass(Json& priority_class, const AdmissionContext&) {
  DefaultPreemptionPolicy(priority_class);
}

// An Event is named by the API it was written through.
void CheckEventWrite(const Json& event, const AdmissionContext& context, const Json* old) {
  const bool via_events_api = context.options.via_events_api;
  auto errors = ValidateEvent(event, via_events_api, old);
  if (errors.empty()) return;
  throw Invalid(via_events_api ? "Event.events.k8s.io" : "Event", NameInMetadata(event), errors);
}

void CreateEvent(Json& event, const AdmissionContext& context) {
  CheckEventWrite(event, context, nullptr);
}

void UpdateEvent(const Json& old, Json& event, const std::string&,
                 const AdmissionContext& context) {
  CheckEventWrite(event, context, &old);
}

// Defaults, then the errors a real server refuses the configuration for.
void AdmitWebhookConfiguration(Json& configuration, const AdmissionContext& context) {
  DefaultMutatingWebhookConfiguration(configuration);
  ThrowIfInvalid(context, configuration, ValidateMutatingWebhookConfiguration(configuration));
}

void CreateWebhookConfiguration(Json& configuration, const AdmissionContext& context) {
  configuration["metadata"]["generation"] = 1;
  AdmitWebhookConfiguration(configuration, context);
}

void UpdateWebhookConfiguration(const Json&, Json& configuration, const std::string&,
                                const AdmissionContext& context) {
  AdmitWebhookConfiguration(configuration, context);
}

void CreateSecret(Json& secret, const AdmissionContext& context) {
  ThrowIfInvalid(context, secret, ValidateSecret(secret, nullptr));
}

void UpdateSecret(const Json& old, Json& secret, const std::string&,
                  const AdmissionContext& context) {
  ThrowIfInvalid(context, secret, ValidateSecret(secret, &old));
}

const std::vector<KindRules>& KindTable() {
  static const std::vector<KindRules> table = {
      {.kind = "Namespace",
       .on_create = CreateNamespace,
       .on_update = UpdateNamespace,
       .name_syntax = NameSyntax::kLabel,
       .without_generation = true},
      {.kind = "Node", .decode = DecodeNode, .without_generation = true},
      {.kind = "Pod",
       .decode = DecodePod,
       .on_create = CreatePod,
       .on_update = UpdatePod,
       .in_category_all = true,
       .delete_returns_object = true},
      {.kind = "Service",
       .on_create = CreateService,
       .name_syntax = NameSyntax::kDns1035Label,
       .without_generation = true,
       .in_category_all = true,
       .delete_returns_object = true},
      {.kind = "ConfigMap", .decode = DecodeConfigMap},
      {.kind = "Secret",
       .decode = DecodeSecret,
       .on_create = CreateSecret,
       .on_update = UpdateSecret},
      {.kind = "Event", .decode = DecodeEvent, .on_create = CreateEvent, .on_update = UpdateEvent},
      {.group = "coordination.k8s.io", .kind = "Lease", .decode = DecodeLease},
      {.group = "scheduling.k8s.io", .kind = "PriorityClass", .on_create = CreatePriorityClass},
      {.group = "apiextensions.k8s.io",
       .kind = "CustomResourceDefinition",
       .on_create = CreateCrd,
       .on_update = UpdateCrd,
       .after_write = ServeCrdResources,
       .after_delete = DropCrdResources},
      {.group = "admissionregistration.k8s.io",
       .kind = "MutatingWebhookConfiguration",
       .on_create = CreateWebhookConfiguration,
       .on_update = UpdateWebhookConfiguration},
      {.group = "apps",
       .kind = "Deployment",
       .decode = DecodeDeployment,
       .on_create = CreateDeployment,
       .on_update = UpdateDeployment,
       .in_category_all = true},
  };
  return table;
}

}  // namespace

const KindRules* RulesFor(const ResourceType& resource) {
  const auto& table = KindTable();
  const auto entry = std::find_if(table.begin(), table.end(), [&](const KindRules& rules) {
    return rules.kind == resource.kind && rules.group == resource.group;
  });
  return entry == table.end() ? nullptr : &*entry;
}

}  // namespace gpupool::sandbox
