// Which mutating webhooks a write is sent to, as the real server's matchers
// decide: the webhook's rules (operations, apiGroups, apiVersions, resources
// with subresources, scope; "*" wildcards), its namespaceSelector over the
// namespace's labels and its objectSelector over the object's (or the old
// object's) labels. matchPolicy is moot: the sandbox serves one version per
// resource. matchConditions (CEL) are not evaluated.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sandbox/rules/resource_type.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

// What the matchers and the AdmissionReview read of one write.
struct AdmissionAttributes {
  const ResourceType* resource = nullptr;
  std::string subresource;
  std::string operation;  // "CREATE" or "UPDATE"
  std::string ns;
  std::string name;  // empty for a create with generateName
  Json old_object;   // null on create
  // Labels of the object's namespace (of a Namespace, its own); null for
  // cluster-scoped objects, which every namespaceSelector matches.
  Json namespace_labels;
};

bool WebhookRulesMatch(const Json& webhook, const AdmissionAttributes& attributes);
bool WebhookSelectorsMatch(const Json& webhook, const AdmissionAttributes& attributes,
                           const Json& object);

}  // namespace gpupool::sandbox
