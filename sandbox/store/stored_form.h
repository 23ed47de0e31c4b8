// An object's stored form: its JSON serialized once, beside what lists,
// selectors and the garbage collector read without parsing it (names,
// labels, selectable field values, owners, finalizers).
#pragma once

#include <nlohmann/json.hpp>

#include "sandbox/rules/resource_type.h"
#include "sandbox/store/store.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

// Builds the stored form; `object` must carry metadata.resourceVersion == rv.
ObjectPtr MakeStored(const ResourceType& resource, const Json& object, uint64_t rv);

// The names `resource`'s objects store their selectable fields under.
SelectableFieldNames FieldNamesOf(const ResourceType& resource);
// `resource`, complete but for them, with its field names set.
ResourcePtr WithFieldNames(std::shared_ptr<ResourceType> resource);

}  // namespace gpupool::sandbox
