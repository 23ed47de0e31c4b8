// Mutating admission webhooks, called as a real kube-apiserver calls them:
// an admission.k8s.io/v1 AdmissionReview POSTed over HTTPS to each matching
// webhook's clientConfig.url, configurations in name order and webhooks in
// their order; a JSONPatch answer edits the object the next webhook sees.
// Denials, failed calls (failurePolicy Fail or Ignore) and invalid answers
// refuse the write with the real server's status and message.
//
// Not done: clientConfig.service (the sandbox has no cluster network: every
// call to a service fails), reinvocationPolicy IfNeeded (each webhook is
// called once), matchConditions, validating webhooks. Every v1 webhook has
// sideEffects None or NoneOnDryRun, so dry runs call them all.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "sandbox/rules/admission.h"
#include "sandbox/webhooks/webhook_match.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

// What a write reads from the store, under its lock, before calling webhooks.
struct WebhookInputs {
  std::vector<Json> configurations;  // MutatingWebhookConfigurations, by name
  Json namespace_labels;             // see AdmissionAttributes
};

// Calls the webhooks of `inputs` that match; leaves `object` as they patched
// it and adds their warnings to `options`. Throws ApiError to refuse the write.
void CallMutatingWebhooks(const WebhookInputs& inputs, const AdmissionAttributes& attributes,
                          WriteOptions& options, Json& object);

}  // namespace gpupool::sandbox
