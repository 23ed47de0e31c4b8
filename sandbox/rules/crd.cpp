#include "sandbox/rules/crd.h"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "gpupool/json/reader.h"
#include "gpupool/openapi/openapi_schema.h"
#include "gpupool/openapi/validation_rules.h"
#include "sandbox/api_error.h"
#include "sandbox/store/stored_form.h"

namespace gpupool::sandbox {
namespace {

// Type and object metadata are the server's, never pruned, defaulted or seen
// by the schema: taken out of `object` while it is checked, and put back.
Json TakeTypeAndMetadata(Json& object) {
  Json kept = Json::object();
  for (const char* field : {"apiVersion", "kind", "metadata"}) {
    if (!object.contains(field)) continue;
    kept[field] = std::move(object[field]);
    object.erase(field);
  }
  return kept;
}

// The object's metadata as a CRD sees it: its name and generateName, all
// that its schema may constrain and all that its rules may read.
Json NamesOf(const Json& kept) {
  Json names = Json::object();
  const Json* metadata = json::Member(&kept, "metadata");
  for (const char* field : {"name", "generateName"}) {
    if (const Json* value = json::Member(metadata, field)) names[field] = *value;
  }
  return names;
}

// metadata.name and metadata.generateName against the schema's limits on them.
void CheckMetadataNames(const openapi::SchemaNode& schema, const Json& names,
                        json::FieldErrors& errors) {
  const openapi::SchemaNode* metadata = schema.Property("metadata");
  if (!metadata) return;
  for (auto& error : openapi::ValidateAgainstSchema(*metadata, names)) {
    errors.push_back({"metadata." + error.path, error.message});
  }
}

// A path inside the status, as a path from the object.
std::string StatusPath(const std::string& path) {
  if (path.empty()) return "status";
  return path[0] == '[' ? "status" + path : "status." + path;
}

const Json& SchemaOf(const Json& version) {
  static const Json kNone = Json::object();
  if (!version.contains("schema") || !version["schema"].contains("openAPIV3Schema")) return kNone;
  return version["schema"]["openAPIV3Schema"];
}

// A custom resource's compiled schema (ServedResources); none checks nothing.
const openapi::SchemaNode& SchemaOf(const ResourceType& resource) {
  static const openapi::SchemaNode kNone;
  return resource.schema ? *resource.schema : kNone;
}

// Schema errors after which the server evaluates no rule (a rule may rely on
// what they check): a wrong type, a missing required field, a value outside
// its enum, a string or list over its size limit.
bool BlocksRules(const json::FieldError& error) {
  static const std::string_view kPrefixes[] = {
      "Required value",   "Unsupported value", "must be of type",  "must be an integer or a string",
      "must not be null", "must be at most",   "must have at most"};
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes), [&](std::string_view prefix) {
    return std::string_view(error.message).substr(0, prefix.size()) == prefix;
  });
}

// The rules, unless a schema error blocks them; then the one error the server
// adds in their place (where the schema has rules at all). Rules at the root
// read the object's name and generateName (`kept` holds its metadata).
void CheckRules(const openapi::SchemaNode& schema, Json& object, const Json& kept, const Json* old,
                json::FieldErrors& errors) {
  if (std::none_of(errors.begin(), errors.end(), BlocksRules)) {
    if (object.is_object()) object["metadata"] = NamesOf(kept);
    openapi::EvaluateRules(schema, object, openapi::SchemaPath(""), errors, old);
    if (object.is_object()) object.erase("metadata");
  } else if (schema.HasRules()) {
    errors.push_back(
        {"<nil>",
         "Invalid value: \"null\": some validation rules were not checked because "
         "the object was invalid; correct the existing errors to complete validation"});
  }
}

json::FieldErrors ValidateNames(const Json& crd) {
  json::FieldErrors errors;
  const Json& spec = crd.value("spec", Json::object());
  const Json& names = spec.value("names", Json::object());
  const std::string group = spec.value("group", "");
  const std::string plural = names.value("plural", "");
  if (group.empty()) errors.push_back({"spec.group", "Required value"});
  if (plural.empty()) errors.push_back({"spec.names.plural", "Required value"});
  if (names.value("kind", "").empty()) errors.push_back({"spec.names.kind", "Required value"});
  const std::string scope = spec.value("scope", "");
  if (scope != "Namespaced" && scope != "Cluster") {
    errors.push_back({"spec.scope", "Unsupported value: \"" + scope +
                                        "\": supported values: \"Cluster\", \"Namespaced\""});
  }
  const std::string name = crd["metadata"].value("name", "");
  if (!plural.empty() && !group.empty() && name != plural + "." + group) {
    errors.push_back({"metadata.name", "Invalid value: \"" + name +
                                           "\": must be spec.names.plural+\".\"+spec.group"});
  }
  return errors;
}

}  // namespace

void CheckCrdDecodes(const Json& crd) {
  const Json& versions = crd.value("spec", Json::object()).value("versions", Json::array());
  if (!versions.is_array()) return;
  for (const auto& version : versions) {
    const std::string error =
        openapi::KeywordDecodeError(SchemaOf(version), "spec.versions.schema.openAPIV3Schema");
    if (error.empty()) continue;
    throw BadRequest(
        "CustomResourceDefinition in version \"v1\" cannot be handled as a "
        "CustomResourceDefinition: " +
        error);
  }
}

json::FieldErrors ValidateCrd(const Json& crd) {
  json::FieldErrors errors = ValidateNames(crd);
  const Json& versions = crd.value("spec", Json::object()).value("versions", Json::array());
  if (versions.empty()) errors.push_back({"spec.versions", "Required value"});
  int storage = 0;
  for (size_t i = 0; i < versions.size(); ++i) {
    const std::string path = json::Child("spec.versions", i);
    if (versions[i].value("name", "").empty()) errors.push_back({path + ".name", "Required value"});
    if (versions[i].value("storage", false)) ++storage;
    const Json& schema = SchemaOf(versions[i]);
    const std::string schema_path = path + ".schema.openAPIV3Schema";
    if (schema.empty()) {
      errors.push_back({schema_path, "Required value: schemas are required"});
      continue;
    }
    // CheckStructural's paths start at openAPIV3Schema.
    for (auto& error : openapi::CheckStructural(schema))
      errors.push_back({json::Child(path + ".schema", error.path), error.message});
    auto rule_errors = openapi::CheckRulesCompile(schema, schema_path);
    errors.insert(errors.end(), rule_errors.begin(), rule_errors.end());
  }
  if (!versions.empty() && storage != 1) {
    errors.push_back({"spec.versions",
                      "Invalid value: must have exactly one version marked as "
                      "storage version"});
  }
  return errors;
}

void EstablishCrd(Json& crd) {
  const Json& spec = crd["spec"];
  Json names = spec["names"];
  const std::string kind = names.value("kind", "");
  if (!names.contains("singular")) {
    std::string singular = kind;
    for (auto& c : singular) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    names["singular"] = singular;
  }
  if (!names.contains("listKind")) names["listKind"] = kind + "List";
  Json stored = Json::array();
  for (const auto& version : spec["versions"]) {
    if (version.value("storage", false)) stored.push_back(version["name"]);
  }
  const std::string now = crd["metadata"].value("creationTimestamp", "");
  crd["status"] = {{"acceptedNames", names},
                   {"storedVersions", stored},
                   {"conditions", Json::array({{{"type", "NamesAccepted"},
                                                {"status", "True"},
                                                {"reason", "NoConflicts"},
                                                {"message", "no conflicts found"},
                                                {"lastTransitionTime", now}},
                                               {{"type", "Established"},
                                                {"status", "True"},
                                                {"reason", "InitialNamesAccepted"},
                                                {"message", "the initial names have been accepted"},
                                                {"lastTransitionTime", now}}})}};
}

std::vector<ResourcePtr> ServedResources(const Json& crd) {
  std::vector<ResourcePtr> served;
  const Json& spec = crd["spec"];
  const Json& names = crd["status"]["acceptedNames"];
  for (const auto& version : spec["versions"]) {
    if (!version.value("served", true)) continue;
    auto resource = std::make_shared<ResourceType>();
    resource->group = spec["group"];
    resource->version = version["name"];
    resource->plural = names["plural"];
    resource->singular = names["singular"];
    resource->kind = names["kind"];
    resource->namespaced = spec.value("scope", "") == "Namespaced";
    resource->short_names = names.value("shortNames", std::vector<std::string>{});
    resource->categories = names.value("categories", std::vector<std::string>{});
    resource->status_subresource =
        version.contains("subresources") && version["subresources"].contains("status");
    for (const auto& field : version.value("selectableFields", Json::array())) {
      std::string path = field.value("jsonPath", "");
      if (!path.empty() && path[0] == '.') path = path.substr(1);
      resource->selectable_fields.push_back(path);
    }
    resource->crd_version = version;
    resource->crd_name = crd["metadata"]["name"];
    const std::string crd_version = crd["metadata"].value("resourceVersion", "");
    if (!crd_version.empty() && crd_version.find_first_not_of("0123456789") == std::string::npos)
      resource->served_since = std::stoull(crd_version);
    resource->schema =
        std::make_shared<const openapi::SchemaNode>(openapi::CompileSchema(SchemaOf(version)));
    served.push_back(WithFieldNames(std::move(resource)));
  }
  return served;
}

CustomResourceCheck CheckCustomResource(const ResourceType& resource, Json& object,
                                        const Json* old) {
  CustomResourceCheck check;
  const openapi::SchemaNode& schema = SchemaOf(resource);
  Json kept = TakeTypeAndMetadata(object);
  openapi::ApplyDefaults(schema, object);
  check.pruned = openapi::Prune(schema, object);
  check.errors = old ? openapi::ValidateUpdateAgainstSchema(schema, object, *old)
                     : openapi::ValidateAgainstSchema(schema, object);
  CheckMetadataNames(schema, NamesOf(kept), check.errors);
  CheckRules(schema, object, kept, old, check.errors);
  object.update(kept);
  return check;
}

CustomResourceCheck CheckCustomResourceStatus(const ResourceType& resource, Json& object,
                                              const Json& old) {
  const openapi::SchemaNode& schema = SchemaOf(resource);
  const openapi::SchemaNode* status_schema = schema.Property("status");
  if (!status_schema || !object.is_object()) return CheckCustomResource(resource, object, &old);
  CustomResourceCheck check;
  if (auto status = object.find("status"); status != object.end()) {
    openapi::ApplyDefaults(*status_schema, *status);
    check.pruned = openapi::Prune(*status_schema, *status, "status");
    const Json* old_status = json::Member(&old, "status");
    check.errors = old_status
                       ? openapi::ValidateUpdateAgainstSchema(*status_schema, *status, *old_status)
                       : openapi::ValidateAgainstSchema(*status_schema, *status);
    for (auto& error : check.errors) error.path = StatusPath(error.path);
  }
  Json kept = TakeTypeAndMetadata(object);
  CheckRules(schema, object, kept, &old, check.errors);
  object.update(kept);
  return check;
}

}  // namespace gpupool::sandbox
