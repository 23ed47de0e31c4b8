// The fields a real server's typed decoder knows for each built-in kind the
// sandbox serves, so that unknown fields are refused with
// fieldValidation=Strict (kubectl's default) and dropped with a warning
// otherwise, as a real server does.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sandbox/rules/resource_type.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

// Removes the fields of `object` that its built-in kind does not have and
// returns their paths ("spec.containers[0].imagee"). Custom resources and
// kinds without a known shape are left alone.
std::vector<std::string> DropUnknownFields(const ResourceType& resource, Json& object);

}  // namespace gpupool::sandbox
