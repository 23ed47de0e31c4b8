// What a real server does to an apps/v1 Deployment: the decoder's type checks,
// the defaults, and validation. No controller runs a Deployment here.
#pragma once

#include <nlohmann/json.hpp>

#include "gpupool/json/field_error.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

// Throws 400 BadRequest, as the decoder does, when a spec field has the wrong
// JSON type (a string strategy, a boolean replica count), naming the field.
void CheckDeploymentTypes(const Json& deployment);
// The apps/v1 defaults: one replica, a rolling update of 25 % unavailable and
// 25 % surge, 10 old revisions, a 600-s progress deadline, and the pod spec
// defaults in the template.
void DefaultDeployment(Json& deployment);
// Errors in a (defaulted) Deployment; `old` is the stored one on an update,
// whose selector may not change.
json::FieldErrors ValidateDeployment(const Json& deployment, const Json* old);

}  // namespace gpupool::sandbox
