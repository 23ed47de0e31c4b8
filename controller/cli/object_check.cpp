#include "object_check.h"

#include <algorithm>
#include <string_view>

#include "crd_schemas.h"
#include "gpupool/api/meta.h"
#include "gpupool/api/validate.h"
#include "gpupool/json/reader.h"
#include "gpupool/openapi/openapi_schema.h"
#include "unknown_fields.h"

namespace gpupool::cli {
namespace {

using Json = nlohmann::json;

std::string StringField(const Json& object, const char* key) {
  return object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : "";
}

std::string ApiGroupOf(const std::string& api_version) {
  const size_t slash = api_version.find('/');
  return slash == std::string::npos ? "" : api_version.substr(0, slash);
}

std::string LabelOf(const Json& object) {
  std::string kind = StringField(object, "kind");
  std::string name, namespace_;
  if (object.contains("metadata") && object["metadata"].is_object()) {
    name = StringField(object["metadata"], "name");
    namespace_ = StringField(object["metadata"], "namespace");
  }
  if (kind.empty()) kind = "(no kind)";
  if (name.empty()) name = "(no name)";
  return kind + " " + (namespace_.empty() ? name : namespace_ + "/" + name);
}

ObjectCheck Invalid(const Json& object, json::FieldErrors errors) {
  return {LabelOf(object), Verdict::kInvalid, "", std::move(errors)};
}

// The CRD's OpenAPI schema, applied as the server does: defaults first, unknown
// fields pruned (UnknownFields reports them), type and metadata left to the server.
json::FieldErrors SchemaErrors(const Json& schema, const Json& object) {
  Json body = object;
  for (const char* server_owned : {"apiVersion", "kind", "metadata"}) body.erase(server_owned);
  openapi::ApplyDefaults(schema, body);
  openapi::Prune(schema, body);
  return openapi::ValidateAgainstSchema(schema, body);
}

// `inner` is `outer` or a field or item below it.
bool IsAtOrBelow(std::string_view inner, std::string_view outer) {
  if (inner.substr(0, outer.size()) != outer) return false;
  return inner.size() == outer.size() || inner[outer.size()] == '.' || inner[outer.size()] == '[';
}

// gpupool's rules restate the schema's, in gpupool's words: a field they
// already name keeps only their message. The schema names a duplicate list
// entry at the item, gpupool at the key inside it.
bool AlreadyReported(const json::FieldError& schema_error, const json::FieldErrors& rule_errors) {
  return std::any_of(rule_errors.begin(), rule_errors.end(), [&](const json::FieldError& rule) {
    return IsAtOrBelow(schema_error.path, rule.path) ||
           (schema_error.path.ends_with(']') && IsAtOrBelow(rule.path, schema_error.path));
  });
}

ObjectCheck CheckServedObject(const Json& object, const ServedKind& served) {
  json::FieldErrors errors = UnknownFields(served.schema, object);
  const json::FieldErrors rule_errors = api::ValidateObject(object);
  errors.insert(errors.end(), rule_errors.begin(), rule_errors.end());
  for (auto& error : SchemaErrors(served.schema, object)) {
    if (!AlreadyReported(error, rule_errors)) errors.push_back(std::move(error));
  }
  ObjectCheck check = Invalid(object, std::move(errors));
  if (check.errors.empty()) check.verdict = Verdict::kValid;
  check.note = kCheckedRules;
  return check;
}

ObjectCheck CheckGpupoolObject(const Json& object) {
  const std::string kind = StringField(object, "kind");
  const std::string api_version = StringField(object, "apiVersion");
  const ServedKind* served = FindServedKind(kind);
  if (!served) {
    return Invalid(object, {{"kind", "no kind \"" + kind + "\" is served by " + api::kGroup +
                                         " (its kinds: " + ServedKindNames() + ")"}});
  }
  if (served->api_version != api_version) {
    return Invalid(object, {{"apiVersion", api_version + " is not served: " + kind + " is " +
                                               served->api_version}});
  }
  return CheckServedObject(object, *served);
}

// kubectl refuses a document without apiVersion or kind before sending it.
json::FieldErrors MissingTypeMeta(const Json& object) {
  json::FieldErrors errors;
  for (const char* key : {"apiVersion", "kind"}) {
    if (StringField(object, key).empty()) errors.push_back({key, "is required"});
  }
  return errors;
}

}  // namespace

std::vector<ObjectCheck> CheckDocument(const Json& document) {
  if (!document.is_object()) {
    return {{"(not an object)",
             Verdict::kInvalid,
             "",
             {{"", "a document must be an object, got " + json::TypeName(document)}}}};
  }
  if (auto errors = MissingTypeMeta(document); !errors.empty()) return {Invalid(document, errors)};
  const std::string api_version = StringField(document, "apiVersion");
  if (api_version == "v1" && StringField(document, "kind") == "List") {
    std::vector<ObjectCheck> checks;
    for (const auto& item : document.value("items", Json::array())) {
      auto item_checks = CheckDocument(item);
      checks.insert(checks.end(), item_checks.begin(), item_checks.end());
    }
    return checks;
  }
  if (ApiGroupOf(api_version) != api::kGroup) {
    return {{LabelOf(document),
             Verdict::kSkipped,
             "apiVersion " + api_version + " is not " + api::kGroup,
             {}}};
  }
  return {CheckGpupoolObject(document)};
}

}  // namespace gpupool::cli
