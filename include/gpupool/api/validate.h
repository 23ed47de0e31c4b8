// One entry point for "is this gpupool object valid?": dispatches on kind and
// returns every problem with its field path, the same rules the CRDs state.
#pragma once

#include <nlohmann/json.hpp>

#include "gpupool/json/field_error.h"

namespace gpupool::api {

// Errors of a Queue, Project, TrainingJob or Department object; an object of another kind
// is reported at `kind`.
json::FieldErrors ValidateObject(const nlohmann::json& object);

}  // namespace gpupool::api
