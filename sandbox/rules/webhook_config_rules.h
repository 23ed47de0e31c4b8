// MutatingWebhookConfiguration (admissionregistration.k8s.io/v1) as the real
// server defaults and validates it: the webhooks' defaults (failurePolicy,
// matchPolicy, selectors, timeout, reinvocationPolicy, rule scope, service
// port) and the errors a real server refuses a configuration for.
#pragma once

#include <nlohmann/json.hpp>

#include "gpupool/json/field_error.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

// Fills the defaults the v1 API gives each webhook.
void DefaultMutatingWebhookConfiguration(Json& configuration);
// The errors of `configuration.webhooks`, paths as the real server names
// them ("webhooks[0].sideEffects").
json::FieldErrors ValidateMutatingWebhookConfiguration(const Json& configuration);

}  // namespace gpupool::sandbox
