// Objects seen as sets of fields (see field_set.h): the fields an object
// sets, what changed between two versions of it, and removing fields.
#pragma once

#include <nlohmann/json.hpp>

#include "sandbox/store/field_set.h"
#include "sandbox/store/field_shapes.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

// Every leaf of `object` (scalars, nulls, empty objects, atomic lists) and
// every item of its keyed and set lists.
FieldSet FieldsOf(const Json& object, const FieldShapes& shapes);

struct FieldChanges {
  FieldSet added;
  FieldSet modified;
  FieldSet removed;
};

FieldChanges CompareFields(const Json& before, const Json& after, const FieldShapes& shapes);
// CompareFields for the member `name` of two objects alone (the changes keep
// their paths from the root): the rest is known to be equal.
FieldChanges CompareMember(const Json& before, const Json& after, const FieldShapes& shapes,
                           const std::string& name);

// Removes each member of `fields` from `object`. An object or list that this
// leaves empty goes too, unless `kept` holds it.
void RemoveFields(Json& object, const FieldSet& fields, const FieldSet& kept,
                  const FieldShapes& shapes);

}  // namespace gpupool::sandbox
