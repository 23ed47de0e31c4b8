// Fields the API server refuses with fieldValidation=Strict, kubectl's default:
// fields a CRD schema does not declare (which the server would otherwise prune
// silently), and keys that are not part of ObjectMeta.
#pragma once

#include <nlohmann/json.hpp>

#include "gpupool/json/field_error.h"

namespace gpupool::cli {

// One error per unknown field, at its path, suggesting a declared sibling
// whose name is close ("spec.replica: unknown field, did you mean replicas?").
json::FieldErrors UnknownFields(const nlohmann::json& schema, const nlohmann::json& object);

}  // namespace gpupool::cli
