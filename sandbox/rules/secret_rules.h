// Secrets as a real API server stores them: `stringData` folded into `data`
// (base64), `type` defaulted to Opaque and kept on update, data that is not
// base64 refused by the decoder (400), the keys a type needs, at most 1 MiB.
#pragma once

#include <nlohmann/json.hpp>

#include "gpupool/json/field_error.h"

namespace gpupool::sandbox {

// Decoding and defaults; throws ApiError (400) for data that is not base64.
void PrepareSecret(nlohmann::json& secret);
// `old` is the stored Secret on an update, else null.
json::FieldErrors ValidateSecret(const nlohmann::json& secret, const nlohmann::json* old);

}  // namespace gpupool::sandbox
