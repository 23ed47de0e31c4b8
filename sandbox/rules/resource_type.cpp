#include "sandbox/rules/resource_type.h"

#include <algorithm>

#include "sandbox/rules/install_resources.h"
#include "sandbox/rules/kind_rules.h"
#include "sandbox/store/stored_form.h"

namespace gpupool::sandbox {
namespace {

std::string PathKey(const std::string& group, const std::string& version,
                    const std::string& plural) {
  return group + "/" + version + "/" + plural;
}

std::vector<ResourcePtr> Builtins() {
  const std::vector<std::string> event_fields = {"involvedObject.kind",
                                                 "involvedObject.namespace",
                                                 "involvedObject.name",
                                                 "involvedObject.uid",
                                                 "involvedObject.apiVersion",
                                                 "involvedObject.resourceVersion",
                                                 "involvedObject.fieldPath",
                                                 "reason",
                                                 "reportingComponent",
                                                 "source",
                                                 "type"};
  return {
      BuiltinResource("", "v1", "namespaces", "namespace", "Namespace", false, {"ns"}, true,
                      {"status.phase"}),
      BuiltinResource("", "v1", "nodes", "node", "Node", false, {"no"}, true,
                      {"spec.unschedulable"}),
      BuiltinResource(
          "", "v1", "pods", "pod", "Pod", true, {"po"}, true,
          {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
           "status.phase", "status.podIP", "status.nominatedNodeName"}),
      BuiltinResource("", "v1", "services", "service", "Service", true, {"svc"}, true),
      BuiltinResource("", "v1", "configmaps", "configmap", "ConfigMap", true, {"cm"}, false),
      BuiltinResource("", "v1", "secrets", "secret", "Secret", true, {}, false, {"type"}),
      BuiltinResource("", "v1", "events", "event", "Event", true, {"ev"}, false, event_fields),
      BuiltinResource("events.k8s.io", "v1", "events", "event", "Event", true, {"ev"}, false,
                      {"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid",
                       "reason", "type", "reportingController"}),
      BuiltinResource("coordination.k8s.io", "v1", "leases", "lease", "Lease", true, {}, false),
      BuiltinResource("scheduling.k8s.io", "v1", "priorityclasses", "priorityclass",
                      "PriorityClass", false, {"pc"}, false),
      BuiltinResource("policy", "v1", "poddisruptionbudgets", "poddisruptionbudget",
                      "PodDisruptionBudget", true, {"pdb"}, true),
      BuiltinResource("apiextensions.k8s.io", "v1", "customresourcedefinitions",
                      "customresourcedefinition", "CustomResourceDefinition", false,
                      {"crd", "crds"}, true),
      BuiltinResource("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations",
                      "mutatingwebhookconfiguration", "MutatingWebhookConfiguration", false, {},
                      false),
  };
}

}  // namespace

ResourcePtr BuiltinResource(std::string group, std::string version, std::string plural,
                            std::string singular, std::string kind, bool namespaced,
                            std::vector<std::string> short_names, bool status,
                            std::vector<std::string> fields) {
  auto resource = std::make_shared<ResourceType>();
  resource->group = std::move(group);
  resource->version = std::move(version);
  resource->plural = std::move(plural);
  resource->singular = std::move(singular);
  resource->kind = std::move(kind);
  resource->namespaced = namespaced;
  resource->short_names = std::move(short_names);
  // The category `all` (`kubectl get all`) holds the kinds their rules put there.
  const KindRules* rules = RulesFor(*resource);
  if (rules && rules->in_category_all) resource->categories = {"all"};
  resource->status_subresource = status;
  resource->selectable_fields = std::move(fields);
  return WithFieldNames(std::move(resource));
}

ResourceRegistry::ResourceRegistry() {
  for (auto& resource : Builtins()) Add(resource);
  for (auto& resource : InstallResources()) Add(resource);
}

ResourcePtr ResourceRegistry::Find(const std::string& group, const std::string& version,
                                   const std::string& plural) const {
  std::lock_guard lock(mutex_);
  auto it = by_path_.find(PathKey(group, version, plural));
  return it == by_path_.end() ? nullptr : it->second;
}

ResourcePtr ResourceRegistry::FindKind(const std::string& api_version,
                                       const std::string& kind) const {
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  std::lock_guard lock(mutex_);
  for (const auto& [key, resource] : by_path_) {
    if (resource->group == group && resource->kind == kind) return resource;
  }
  return nullptr;
}

std::vector<ResourcePtr> ResourceRegistry::All() const {
  std::lock_guard lock(mutex_);
  std::vector<ResourcePtr> all;
  for (const auto& [key, resource] : by_path_) all.push_back(resource);
  return all;
}

std::map<std::string, std::vector<std::string>> ResourceRegistry::Groups() const {
  std::map<std::string, std::vector<std::string>> groups;
  for (const auto& resource : All()) {
    if (resource->group.empty()) continue;
    auto& versions = groups[resource->group];
    if (std::find(versions.begin(), versions.end(), resource->version) == versions.end()) {
      versions.push_back(resource->version);
    }
  }
  return groups;
}

void ResourceRegistry::Add(ResourcePtr resource) {
  std::lock_guard lock(mutex_);
  by_path_[PathKey(resource->group, resource->version, resource->plural)] = std::move(resource);
}

void ResourceRegistry::RemoveCrd(const std::string& crd_name) {
  std::lock_guard lock(mutex_);
  std::erase_if(by_path_, [&](const auto& entry) { return entry.second->crd_name == crd_name; });
}

}  // namespace gpupool::sandbox
