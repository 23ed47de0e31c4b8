#include "sandbox/rules/webhook_config_rules.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "sandbox/store/names.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

using Strings = std::vector<std::string>;

std::string Quoted(const std::string& text) { return Json(text).dump(); }

// field.NotSupported's message: `Unsupported value: "x": supported values: "a", "b"`.
std::string UnsupportedValue(const Json& value, const Strings& supported) {
  std::string message = "Unsupported value: " + value.dump() + ": supported values: ";
  for (size_t i = 0; i < supported.size(); ++i) message += (i ? ", " : "") + Quoted(supported[i]);
  return message;
}

// A string member outside `supported`, when set.
void CheckEnum(const Json& owner, const char* field, const std::string& path,
               const Strings& supported, json::FieldErrors& errors) {
  if (!owner.contains(field) || owner[field].is_null()) return;
  const Json& value = owner[field];
  if (value.is_string() &&
      std::find(supported.begin(), supported.end(), value.get<std::string>()) != supported.end()) {
    return;
  }
  errors.push_back({json::Child(path, field), UnsupportedValue(value, supported)});
}

Strings StringList(const Json& owner, const char* field) {
  Strings values;
  if (!owner.contains(field) || !owner[field].is_array()) return values;
  for (const auto& item : owner[field])
    values.push_back(item.is_string() ? item.get<std::string>() : "");
  return values;
}

bool HasWildcard(const Strings& values) {
  return std::find(values.begin(), values.end(), "*") != values.end();
}

// utilvalidation.IsFullyQualifiedName: a DNS subdomain of three segments at least.
void CheckWebhookName(const std::string& name, const std::string& path, json::FieldErrors& errors) {
  if (name.empty()) {
    errors.push_back({path, "Required value"});
    return;
  }
  if (!IsDns1123Subdomain(name)) {
    for (auto& error : ValidateObjectName(name, path)) errors.push_back(error);
    return;
  }
  if (std::count(name.begin(), name.end(), '.') < 2) {
    errors.push_back({path, "Invalid value: " + Quoted(name) +
                                ": should be a domain with at least three segments separated by "
                                "dots"});
  }
}

void CheckRuleLists(const Json& rule, const std::string& path, json::FieldErrors& errors) {
  const std::pair<const char*, const char*> kLists[] = {{"apiGroups", "API groups"},
                                                        {"apiVersions", "API versions"}};
  for (const auto& [field, words] : kLists) {
    const Strings values = StringList(rule, field);
    if (values.empty()) errors.push_back({json::Child(path, field), "Required value"});
    if (values.size() > 1 && HasWildcard(values)) {
      errors.push_back(
          {json::Child(path, field), std::string("Invalid value: ") + Json(values).dump() +
                                         ": if '*' is present, must not specify other " + words});
    }
  }
  if (StringList(rule, "resources").empty()) {
    errors.push_back({json::Child(path, "resources"), "Required value"});
  }
  CheckEnum(rule, "scope", path, {"*", "Cluster", "Namespaced"}, errors);
}

void CheckRule(const Json& rule, const std::string& path, json::FieldErrors& errors) {
  const Strings operations = StringList(rule, "operations");
  const std::string operations_path = json::Child(path, "operations");
  if (operations.empty()) errors.push_back({operations_path, "Required value"});
  if (operations.size() > 1 && HasWildcard(operations)) {
    errors.push_back({operations_path, "Invalid value: " + Json(operations).dump() +
                                           ": if '*' is present, must not specify other "
                                           "operations"});
  }
  const Strings supported = {"*", "CONNECT", "CREATE", "DELETE", "UPDATE"};
  for (size_t i = 0; i < operations.size(); ++i) {
    if (std::find(supported.begin(), supported.end(), operations[i]) == supported.end()) {
      errors.push_back(
          {json::Child(operations_path, i), UnsupportedValue(operations[i], supported)});
    }
  }
  CheckRuleLists(rule, path, errors);
}

// Go's url.Parse, as far as webhook.ValidateWebhookURL reads it.
struct UrlParts {
  std::string scheme, user, host, query, fragment;
};

UrlParts SplitUrl(std::string url) {
  UrlParts parts;
  if (const auto hash = url.find('#'); hash != std::string::npos) {
    parts.fragment = url.substr(hash + 1);
    url.erase(hash);
  }
  if (const auto question = url.find('?'); question != std::string::npos) {
    parts.query = url.substr(question + 1);
    url.erase(question);
  }
  const auto colon = url.find(':');
  if (colon != std::string::npos && colon > 0 && std::isalpha(static_cast<unsigned char>(url[0]))) {
    parts.scheme = url.substr(0, colon);
    url.erase(0, colon + 1);
  }
  if (url.rfind("//", 0) != 0) return parts;
  std::string authority = url.substr(2, url.find('/', 2) - 2);
  if (const auto at = authority.rfind('@'); at != std::string::npos) {
    parts.user = authority.substr(0, at);
    authority.erase(0, at + 1);
  }
  parts.host = authority;
  return parts;
}

void CheckWebhookUrl(const std::string& url, const std::string& path, json::FieldErrors& errors) {
  const std::string form = "; desired format: https://host[/path]";
  const UrlParts parts = SplitUrl(url);
  if (parts.scheme != "https") {
    errors.push_back({path, "Invalid value: " + Quoted(parts.scheme) +
                                ": 'https' is the only allowed URL scheme" + form});
  }
  if (parts.host.empty()) {
    errors.push_back({path, "Invalid value: \"\": host must be specified" + form});
  }
  if (!parts.user.empty()) {
    errors.push_back({path, "Invalid value: " + Quoted(parts.user) +
                                ": user information is not permitted in the URL"});
  }
  if (!parts.fragment.empty()) {
    errors.push_back({path, "Invalid value: " + Quoted(parts.fragment) +
                                ": fragments are not permitted in the URL"});
  }
  if (!parts.query.empty()) {
    errors.push_back({path, "Invalid value: " + Quoted(parts.query) +
                                ": query parameters are not permitted in the URL"});
  }
}

void CheckClientConfig(const Json& webhook, const std::string& path, json::FieldErrors& errors) {
  const std::string config_path = json::Child(path, "clientConfig");
  const Json config = webhook.value("clientConfig", Json::object());
  const bool has_url = config.is_object() && config.contains("url") && !config["url"].is_null();
  const bool has_service =
      config.is_object() && config.contains("service") && !config["service"].is_null();
  if (has_url == has_service) {
    errors.push_back({config_path, "Required value: exactly one of url or service is required"});
  } else if (has_url) {
    CheckWebhookUrl(config["url"].is_string() ? config["url"].get<std::string>() : "",
                    json::Child(config_path, "url"), errors);
  } else {
    const std::string service_path = json::Child(config_path, "service");
    const Json& service = config["service"];
    if (service.value("name", "").empty()) {
      errors.push_back(
          {json::Child(service_path, "name"), "Required value: service name is required"});
    }
    if (service.value("namespace", "").empty()) {
      errors.push_back({json::Child(service_path, "namespace"),
                        "Required value: service namespace is required"});
    }
  }
}

void CheckTimeout(const Json& webhook, const std::string& path, json::FieldErrors& errors) {
  if (!webhook.contains("timeoutSeconds") || webhook["timeoutSeconds"].is_null()) return;
  const Json& timeout = webhook["timeoutSeconds"];
  if (timeout.is_number_integer() && timeout.get<int64_t>() >= 1 && timeout.get<int64_t>() <= 30) {
    return;
  }
  errors.push_back({json::Child(path, "timeoutSeconds"),
                    "Invalid value: " + timeout.dump() +
                        ": the timeout value must be between 1 and 30 seconds"});
}

// validateMutatingWebhook, in the order the real server checks.
void CheckWebhook(const Json& webhook, const std::string& path, json::FieldErrors& errors) {
  CheckWebhookName(webhook.value("name", ""), json::Child(path, "name"), errors);
  const Json rules = webhook.value("rules", Json::array());
  for (size_t i = 0; i < rules.size(); ++i) {
    CheckRule(rules[i], json::Child(json::Child(path, "rules"), i), errors);
  }
  CheckEnum(webhook, "failurePolicy", path, {"Fail", "Ignore"}, errors);
  CheckEnum(webhook, "matchPolicy", path, {"Equivalent", "Exact"}, errors);
  if (!webhook.contains("sideEffects") || webhook["sideEffects"].is_null()) {
    errors.push_back({json::Child(path, "sideEffects"),
                      "Required value: must specify one of None, NoneOnDryRun"});
  }
  CheckEnum(webhook, "sideEffects", path, {"None", "NoneOnDryRun"}, errors);
  CheckTimeout(webhook, path, errors);
  CheckEnum(webhook, "reinvocationPolicy", path, {"IfNeeded", "Never"}, errors);
  CheckClientConfig(webhook, path, errors);
}

void CheckReviewVersions(const Json& webhook, const std::string& path, json::FieldErrors& errors) {
  const Strings versions = StringList(webhook, "admissionReviewVersions");
  if (versions.empty()) {
    errors.push_back({path, "Required value: must specify one of v1, v1beta1"});
    return;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < versions.size(); ++i) {
    if (!seen.insert(versions[i]).second) {
      errors.push_back(
          {json::Child(path, i), "Invalid value: " + Quoted(versions[i]) + ": duplicate version"});
    }
  }
  if (!seen.count("v1") && !seen.count("v1beta1")) {
    errors.push_back({path, "Invalid value: " + Json(versions).dump() +
                                ": must include at least one of v1, v1beta1"});
  }
}

void DefaultWebhook(Json& webhook) {
  const std::pair<const char*, Json> kDefaults[] = {{"failurePolicy", "Fail"},
                                                    {"matchPolicy", "Equivalent"},
                                                    {"namespaceSelector", Json::object()},
                                                    {"objectSelector", Json::object()},
                                                    {"timeoutSeconds", 10},
                                                    {"reinvocationPolicy", "Never"}};
  for (const auto& [field, value] : kDefaults) {
    if (!webhook.contains(field) || webhook[field].is_null()) webhook[field] = value;
  }
  if (webhook.contains("rules") && webhook["rules"].is_array()) {
    for (auto& rule : webhook["rules"]) {
      if (rule.is_object() && !rule.contains("scope")) rule["scope"] = "*";
    }
  }
  if (webhook.contains("clientConfig") && webhook["clientConfig"].is_object()) {
    auto& config = webhook["clientConfig"];
    if (config.contains("service") && config["service"].is_object() &&
        !config["service"].contains("port")) {
      config["service"]["port"] = 443;
    }
  }
}

}  // namespace

void DefaultMutatingWebhookConfiguration(Json& configuration) {
  if (!configuration.contains("webhooks") || !configuration["webhooks"].is_array()) return;
  for (auto& webhook : configuration["webhooks"]) {
    if (webhook.is_object()) DefaultWebhook(webhook);
  }
}

json::FieldErrors ValidateMutatingWebhookConfiguration(const Json& configuration) {
  json::FieldErrors errors;
  const Json webhooks = configuration.value("webhooks", Json::array());
  std::set<std::string> names;
  for (size_t i = 0; i < webhooks.size(); ++i) {
    const std::string path = json::Child("webhooks", i);
    CheckWebhook(webhooks[i], path, errors);
    CheckReviewVersions(webhooks[i], json::Child(path, "admissionReviewVersions"), errors);
    const std::string name = webhooks[i].value("name", "");
    if (!name.empty() && !names.insert(name).second) {
      errors.push_back({json::Child(path, "name"), "Duplicate value: " + Quoted(name)});
    }
  }
  return errors;
}

}  // namespace gpupool::sandbox
