// How server-side apply names the parts of an object: map fields by name, and
// list items by key ("k:{...}"), by value ("v:...") or not at all, the list
// being atomic. Custom resources follow their CRD schema
// (x-kubernetes-list-type and x-kubernetes-list-map-keys); built-in kinds the
// list merge keys of their Go types, one key per list, and `finalizers` is a
// set. A keyed list whose items lack the key or repeat one is atomic.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sandbox/rules/resource_type.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

struct ListShape {
  enum class Kind { kAtomic, kMap, kSet };
  Kind kind = Kind::kAtomic;
  std::vector<std::string> keys;  // kMap only
  // The step of each item of the list the shape was read from (FieldShapes::List),
  // in order; none for an atomic list.
  std::vector<std::string> steps;
};

inline bool IsKeyed(const ListShape& shape) { return shape.kind != ListShape::Kind::kAtomic; }

class FieldShapes {
 public:
  // The shapes at the root of `resource`'s objects.
  static FieldShapes Of(const ResourceType& resource);

  FieldShapes Field(const std::string& name) const;
  FieldShapes Item() const;
  // The shape of the list `items` found at this node, with its items' steps.
  ListShape List(const Json& items) const;
  // A struct every object of the kind has, even an empty one (metadata; spec
  // and status of built-in kinds): never a field in itself.
  bool AlwaysPresent() const { return always_present_; }

 private:
  ListShape Declared(const Json& sample) const;

  const openapi::SchemaNode* schema_ = nullptr;  // custom resources: this node's schema, if known
  bool custom_ = false;
  bool root_ = false;
  bool always_present_ = false;
  std::string field_;  // built-in kinds: the name of the field this node is
};

// The merge key of the built-in kinds' list `field` (patchMergeKey in their Go
// types; `sample` is an item, for lists whose key depends on the kind), or
// null for lists that are replaced as a whole.
const char* ListMergeKey(const std::string& field, const Json& sample);

// The step naming `item` of a keyed or set list of `shape`.
std::string ItemStep(const ListShape& shape, const Json& item);

}  // namespace gpupool::sandbox
