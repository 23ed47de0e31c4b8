#include "sandbox/store/field_shapes.h"

#include <set>
#include <string_view>

#include "sandbox/store/field_set.h"

namespace gpupool::sandbox {
namespace {

bool IsScalar(const Json& value) { return !value.is_object() && !value.is_array(); }

ListShape SchemaListShape(const openapi::SchemaNode* schema) {
  if (!schema) return {};
  if (schema->list_type == "set") return {ListShape::Kind::kSet, {}};
  if (schema->list_type != "map" || !schema->list_map_keys_given) return {};
  return {ListShape::Kind::kMap, schema->list_map_keys};
}

// Whether `items` fit `shape`: each has the key, or is a scalar in a set, and
// no two share a step. Their steps fill `shape.steps`.
bool Fits(ListShape& shape, const Json& items) {
  shape.steps.reserve(items.size());
  for (const auto& item : items) {
    if (shape.kind == ListShape::Kind::kSet && !IsScalar(item)) return false;
    if (shape.kind == ListShape::Kind::kMap) {
      if (!item.is_object()) return false;
      for (const auto& key : shape.keys) {
        const auto found = item.find(key);
        if (found == item.end() || !IsScalar(*found)) return false;
      }
    }
    shape.steps.push_back(ItemStep(shape, item));
  }
  std::set<std::string_view> seen;
  for (const auto& step : shape.steps) {
    if (!seen.insert(step).second) return false;
  }
  return true;
}

}  // namespace

const char* ListMergeKey(const std::string& field, const Json& sample) {
  static const std::pair<const char*, const char*> kKeys[] = {
      {"containers", "name"},
      {"initContainers", "name"},
      {"ephemeralContainers", "name"},
      {"volumes", "name"},
      {"env", "name"},
      {"volumeMounts", "mountPath"},
      {"volumeDevices", "devicePath"},
      {"imagePullSecrets", "name"},
      {"conditions", "type"},
      {"ownerReferences", "uid"},
      {"schedulingGates", "name"},
      {"resourceClaims", "name"},
      {"hostAliases", "ip"},
      {"topologySpreadConstraints", "topologyKey"},
      {"addresses", "type"},
  };
  if (field == "ports") {
    return sample.is_object() && sample.contains("containerPort") ? "containerPort" : "port";
  }
  for (const auto& [name, key] : kKeys) {
    if (field == name) return key;
  }
  return nullptr;
}

FieldShapes FieldShapes::Of(const ResourceType& resource) {
  FieldShapes shapes;
  shapes.root_ = true;
  shapes.custom_ = resource.IsCustom();
  if (shapes.custom_) shapes.schema_ = resource.schema.get();
  return shapes;
}

FieldShapes FieldShapes::Field(const std::string& name) const {
  FieldShapes child;
  child.custom_ = custom_ && !(root_ && name == "metadata");  // metadata is ObjectMeta
  child.always_present_ =
      root_ && (name == "metadata" || (!custom_ && (name == "spec" || name == "status")));
  if (!child.custom_) {
    child.field_ = name;
    return child;
  }
  if (!schema_) return child;
  child.schema_ = schema_->Property(name);
  if (!child.schema_) child.schema_ = schema_->Additional();
  return child;
}

FieldShapes FieldShapes::Item() const {
  FieldShapes item;
  item.custom_ = custom_;
  item.schema_ = schema_ ? schema_->items.get() : nullptr;
  return item;
}

ListShape FieldShapes::Declared(const Json& sample) const {
  if (custom_) return SchemaListShape(schema_);
  if (field_ == "finalizers") return {ListShape::Kind::kSet, {}};
  const char* key = ListMergeKey(field_, sample);
  if (!key) return {};
  return {ListShape::Kind::kMap, {key}};
}

ListShape FieldShapes::List(const Json& items) const {
  if (!items.is_array()) return {};
  ListShape shape = Declared(items.empty() ? Json() : items.front());
  if (shape.kind == ListShape::Kind::kAtomic || Fits(shape, items)) return shape;
  return {};
}

std::string ItemStep(const ListShape& shape, const Json& item) {
  if (shape.kind == ListShape::Kind::kSet) return ValueStep(item);
  Json key_fields = Json::object();
  for (const auto& key : shape.keys) key_fields[key] = item.value(key, Json());
  return KeyStep(key_fields);
}

}  // namespace gpupool::sandbox
