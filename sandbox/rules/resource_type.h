// What the server knows about one served resource: names for discovery and
// URLs, scope, subresources and the fields list/watch may select on.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpupool/openapi/schema_node.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

// The names an object's selectable fields are stored under (metadata.name and
// metadata.namespace first, then the resource's selectable fields, then a core
// Event's aliases of them), and, aligned, the field each reads its value from.
struct SelectableFieldNames {
  std::vector<std::string> names;
  std::vector<std::string> sources;
};

struct ResourceType {
  std::string group;  // "" for the core group
  std::string version;
  std::string plural;
  std::string singular;
  std::string kind;
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  bool status_subresource = false;
  // Field selector labels beyond metadata.name and metadata.namespace, each a
  // dotted path into the object.
  std::vector<std::string> selectable_fields;
  // Made from the above once the resource is complete (WithFieldNames), shared by
  // every stored object of the resource.
  std::shared_ptr<const SelectableFieldNames> field_names;
  // Custom resources only: the CRD version entry (schema, printer columns)
  // and the CRD's name.
  Json crd_version;
  std::string crd_name;
  // The version's openAPIV3Schema, compiled once (ServedResources): what the
  // custom-resource checks and managedFields' list shapes read.
  std::shared_ptr<const openapi::SchemaNode> schema;
  // Custom resources only: the resourceVersion of the CRD write that (re)made
  // them served. A real server's watch cache for them starts there, so a watch
  // from an older version is 410 Expired, however long the history.
  uint64_t served_since = 0;

  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
  // "pods" or "queues.gpupool.dev": how errors name the resource.
  std::string QualifiedName() const { return group.empty() ? plural : plural + "." + group; }
  bool IsCustom() const { return !crd_name.empty(); }
};

// "Kind.group", or the kind alone in the core group: how the API server names a
// resource in its messages.
inline std::string QualifiedKind(const ResourceType& resource) {
  return resource.group.empty() ? resource.kind : resource.kind + "." + resource.group;
}

using ResourcePtr = std::shared_ptr<const ResourceType>;

// A built-in resource; `fields` are its selectable fields beyond
// metadata.name and metadata.namespace.
ResourcePtr BuiltinResource(std::string group, std::string version, std::string plural,
                            std::string singular, std::string kind, bool namespaced,
                            std::vector<std::string> short_names, bool status,
                            std::vector<std::string> fields = {});

// The resources served, by group/version/plural. Built-ins are fixed; custom
// resources come and go with their CustomResourceDefinitions.
class ResourceRegistry {
 public:
  ResourceRegistry();

  ResourcePtr Find(const std::string& group, const std::string& version,
                   const std::string& plural) const;
  // By group and kind in any served version (for ownerReferences, events).
  ResourcePtr FindKind(const std::string& api_version, const std::string& kind) const;
  std::vector<ResourcePtr> All() const;
  // Group name -> its versions, the core group excluded, in a stable order.
  std::map<std::string, std::vector<std::string>> Groups() const;

  void Add(ResourcePtr resource);
  void RemoveCrd(const std::string& crd_name);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, ResourcePtr> by_path_;  // "group/version/plural"
};

}  // namespace gpupool::sandbox
