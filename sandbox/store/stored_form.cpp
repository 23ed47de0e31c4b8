#include "sandbox/store/stored_form.h"

#include <algorithm>

#include "gpupool/json/dump.h"
#include "sandbox/store/events.h"

namespace gpupool::sandbox {
namespace {

// The string a selectable field path has in `object` ("" when absent).
std::string FieldValue(const Json& object, const std::string& path) {
  if (path == "source" && object.contains("source")) {
    return object["source"].value("component", "");
  }
  const Json* node = &object;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t dot = std::min(path.find('.', start), path.size());
    const std::string part = path.substr(start, dot - start);
    if (!node->is_object() || !node->contains(part)) return "";
    node = &(*node)[part];
    start = dot + 1;
  }
  if (node->is_string()) return node->get<std::string>();
  if (node->is_boolean()) return node->get<bool>() ? "true" : "false";
  if (node->is_null()) return "";
  return node->dump();
}

}  // namespace

SelectableFieldNames FieldNamesOf(const ResourceType& resource) {
  SelectableFieldNames fields;
  fields.names = {"metadata.name", "metadata.namespace"};
  fields.names.insert(fields.names.end(), resource.selectable_fields.begin(),
                      resource.selectable_fields.end());
  fields.sources = fields.names;
  if (!IsCoreEvent(resource)) return fields;
  // Field selectors through events.k8s.io name the same stored fields
  // differently: regarding.kind for involvedObject.kind, ...
  const size_t count = fields.names.size();
  for (size_t i = 0; i < count; ++i) {
    for (const auto& [core, v1] : EventFieldAliases()) {
      const std::string path = fields.names[i];
      if (path == core || path.rfind(core + ".", 0) == 0) {
        fields.names.push_back(v1 + path.substr(core.size()));
        fields.sources.push_back(path);
      }
    }
  }
  return fields;
}

ResourcePtr WithFieldNames(std::shared_ptr<ResourceType> resource) {
  resource->field_names = std::make_shared<const SelectableFieldNames>(FieldNamesOf(*resource));
  return resource;
}

ObjectPtr MakeStored(const ResourceType& resource, const Json& object, uint64_t rv) {
  auto stored = std::make_shared<StoredObject>();
  const Json& metadata = object["metadata"];
  stored->ns = metadata.value("namespace", "");
  stored->name = metadata.value("name", "");
  stored->uid = metadata.value("uid", "");
  stored->rv = rv;
  if (metadata.contains("labels") && metadata["labels"].is_object()) {
    for (const auto& [key, value] : metadata["labels"].items()) {
      if (value.is_string()) stored->labels.emplace_back(key, value.get<std::string>());
    }
  }
  // A resource made by hand (tests) has no names yet: its objects get their own.
  auto names = resource.field_names;
  if (!names) names = std::make_shared<const SelectableFieldNames>(FieldNamesOf(resource));
  for (const auto& source : names->sources) {
    if (source == "metadata.name") {
      stored->field_values.push_back(stored->name);
    } else if (source == "metadata.namespace") {
      stored->field_values.push_back(stored->ns);
    } else {
      stored->field_values.push_back(FieldValue(object, source));
    }
  }
  stored->field_names = std::move(names);
  if (metadata.contains("ownerReferences") && metadata["ownerReferences"].is_array()) {
    for (const auto& owner : metadata["ownerReferences"]) {
      if (owner.is_object()) stored->owner_uids.push_back(owner.value("uid", ""));
    }
  }
  stored->deleting = metadata.contains("deletionTimestamp");
  if (metadata.contains("finalizers") && metadata["finalizers"].is_array()) {
    for (const auto& finalizer : metadata["finalizers"])
      stored->finalizes_dependents = stored->finalizes_dependents ||
                                     finalizer == "foregroundDeletion" || finalizer == "orphan";
  }
  stored->json = json::Dump(object);
  return stored;
}

}  // namespace gpupool::sandbox
