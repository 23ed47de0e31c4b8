// Parsing JSON while leaving chosen members out. The members are read past,
// never built: parsing an object without a large member nobody reads (an
// API object's metadata.managedFields) saves the allocations that member
// would cost, not only its memory.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::json {

// Member names from the top-level object down, e.g. {"metadata",
// "managedFields"}; "*" stands for any name. A path never passes through an
// array.
using MemberPath = std::vector<std::string>;

// The value of `text` without the members at `skipped`; a discarded value
// (`is_discarded()`) when `text` is not exactly one JSON value.
nlohmann::json ParseWithout(std::string_view text, const std::vector<MemberPath>& skipped);

// The same members dropped from a value already parsed (a list's items, say).
void EraseMember(nlohmann::json& value, const MemberPath& path);

}  // namespace gpupool::json
