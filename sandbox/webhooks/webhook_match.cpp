#include "sandbox/webhooks/webhook_match.h"

#include <algorithm>

#include "sandbox/store/selectors.h"

namespace gpupool::sandbox {
namespace {

bool ListAllows(const Json& rule, const char* field, const std::string& value) {
  if (!rule.contains(field) || !rule[field].is_array()) return false;
  const Json& values = rule[field];
  return std::any_of(values.begin(), values.end(), [&](const Json& item) {
    return item.is_string() && (item == "*" || item == value);
  });
}

// "pods" matches the resource only, "pods/status" one subresource,
// "pods/*" the resource and all its subresources, "*" and "*/*" likewise
// for every resource.
bool ResourceAllowed(const Json& rule, const AdmissionAttributes& attributes) {
  for (const auto& entry : rule.value("resources", Json::array())) {
    if (!entry.is_string()) continue;
    const std::string text = entry.get<std::string>();
    const auto slash = text.find('/');
    const std::string resource = text.substr(0, slash);
    const std::string subresource = slash == std::string::npos ? "" : text.substr(slash + 1);
    const bool resource_match = resource == "*" || resource == attributes.resource->plural;
    const bool subresource_match = subresource == "*" || subresource == attributes.subresource;
    if (resource_match && subresource_match) return true;
  }
  return false;
}

bool ScopeAllowed(const Json& rule, const AdmissionAttributes& attributes) {
  const std::string scope = rule.value("scope", "*");
  if (scope == "Cluster") return !attributes.resource->namespaced;
  if (scope == "Namespaced") return attributes.resource->namespaced;
  return true;
}

bool RuleMatches(const Json& rule, const AdmissionAttributes& attributes) {
  if (!rule.is_object()) return false;
  return ListAllows(rule, "operations", attributes.operation) &&
         ListAllows(rule, "apiGroups", attributes.resource->group) &&
         ListAllows(rule, "apiVersions", attributes.resource->version) &&
         ResourceAllowed(rule, attributes) && ScopeAllowed(rule, attributes);
}

const Json& LabelsOf(const Json& object) {
  static const Json kNoLabels = Json::object();
  if (!object.is_object() || !object.contains("metadata")) return kNoLabels;
  const Json& metadata = object["metadata"];
  if (!metadata.is_object() || !metadata.contains("labels") || !metadata["labels"].is_object()) {
    return kNoLabels;
  }
  return metadata["labels"];
}

}  // namespace

bool WebhookRulesMatch(const Json& webhook, const AdmissionAttributes& attributes) {
  const Json rules = webhook.value("rules", Json::array());
  return std::any_of(rules.begin(), rules.end(),
                     [&](const Json& rule) { return RuleMatches(rule, attributes); });
}

bool WebhookSelectorsMatch(const Json& webhook, const AdmissionAttributes& attributes,
                           const Json& object) {
  const Json namespace_selector = webhook.value("namespaceSelector", Json::object());
  if (!attributes.namespace_labels.is_null() &&
      !MatchesLabelSelector(namespace_selector, attributes.namespace_labels)) {
    return false;
  }
  // Either state may match, so that a webhook sees the update that removes a label.
  const Json object_selector = webhook.value("objectSelector", Json::object());
  return MatchesLabelSelector(object_selector, LabelsOf(object)) ||
         (!attributes.old_object.is_null() &&
          MatchesLabelSelector(object_selector, LabelsOf(attributes.old_object)));
}

}  // namespace gpupool::sandbox
