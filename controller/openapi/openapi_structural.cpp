// Structural-schema rules of apiextensions.k8s.io/v1 CRDs.
#include <array>
#include <cstdint>
#include <regex>
#include <string_view>
#include <utility>

#include "gpupool/json/reader.h"
#include "gpupool/openapi/openapi_schema.h"
#include "keyword_shapes.h"

namespace gpupool::openapi {
namespace {

constexpr std::array<std::string_view, 8> kForbiddenKeys = {
    "$ref",
    "$schema",
    "id",
    "definitions",
    "dependencies",
    "additionalItems",
    "patternProperties",
    "x-kubernetes-embedded-resource-unknown"};

// Keys a value-validation branch (allOf/anyOf/oneOf/not) may not carry.
constexpr std::array<std::string_view, 6> kNotInValueValidation = {
    "type",
    "additionalProperties",
    "default",
    "nullable",
    "x-kubernetes-preserve-unknown-fields",
    "description"};

const char* ShapeError(Shape shape, const Json& value) {
  switch (shape) {
    case Shape::kCount:
      return value.is_number_integer() && value.get<std::int64_t>() >= 0
                 ? nullptr
                 : "must be a non-negative integer";
    case Shape::kNumber:
      return value.is_number() ? nullptr : "must be a number";
    case Shape::kString:
      return value.is_string() ? nullptr : "must be a string";
    case Shape::kBoolean:
      return value.is_boolean() ? nullptr : "must be a boolean";
    case Shape::kStrings:
      for (const auto& item : value.is_array() ? value : Json::array({nullptr}))
        if (!item.is_string()) return "must be a list of strings";
      return nullptr;
    case Shape::kList:
      return value.is_array() ? nullptr : "must be a list";
    case Shape::kObject:
      return value.is_object() ? nullptr : "must be an object";
  }
  return nullptr;
}

bool ValidPattern(const std::string& pattern) {
  try {
    std::regex compiled(pattern, std::regex::ECMAScript);
    return true;
  } catch (const std::regex_error&) {
    return false;
  }
}

// Errors in the values of the node's own keywords; none: the node can be read.
bool CheckKeywordValues(const Json& schema, const std::string& path, json::FieldErrors& errors) {
  const std::size_t before = errors.size();
  for (const auto& [key, shape] : kKeywordShapes) {
    const auto found = schema.find(key);
    if (found == schema.end()) continue;
    if (const char* error = ShapeError(shape, *found))
      errors.push_back({json::Child(path, key), error});
  }
  if (errors.size() > before) return false;
  if (schema.contains("pattern") && !ValidPattern(schema["pattern"].get<std::string>()))
    errors.push_back({json::Child(path, "pattern"), "must be a valid regular expression"});
  const std::string list_type = schema.value("x-kubernetes-list-type", "atomic");
  if (list_type != "atomic" && list_type != "set" && list_type != "map") {
    errors.push_back({json::Child(path, "x-kubernetes-list-type"),
                      "Unsupported value: \"" + list_type +
                          "\": supported values: \"atomic\", \"map\", \"set\""});
  }
  return errors.size() == before;
}

bool IsIntOrStringPair(const Json& branches) {
  if (!branches.is_array() || branches.size() != 2) return false;
  return branches[0] == Json{{"type", "integer"}} && branches[1] == Json{{"type", "string"}};
}

void CheckNode(const Json& schema, const std::string& path, bool root, json::FieldErrors& errors);

void CheckValueValidation(const Json& schema, const std::string& path, bool int_or_string,
                          json::FieldErrors& errors) {
  for (const char* key : {"allOf", "anyOf", "oneOf"}) {
    if (!schema.contains(key)) continue;
    const Json& branches = schema[key];
    if (int_or_string && std::string_view(key) == "anyOf" && IsIntOrStringPair(branches)) continue;
    if (!branches.is_array()) {
      errors.push_back({json::Child(path, key), "must be an array of schemas"});
      continue;
    }
    for (size_t i = 0; i < branches.size(); ++i) {
      for (auto forbidden : kNotInValueValidation) {
        if (branches[i].is_object() && branches[i].contains(forbidden)) {
          errors.push_back({json::Child(json::Child(json::Child(path, key), i), forbidden),
                            "must not be set inside a value validation"});
        }
      }
    }
  }
}

void CheckChildren(const Json& schema, const std::string& path, json::FieldErrors& errors) {
  if (schema.contains("properties")) {
    if (schema.contains("additionalProperties")) {
      errors.push_back(
          {json::Child(path, "additionalProperties"), "must not be set together with properties"});
    }
    for (const auto& [name, child] : schema["properties"].items()) {
      CheckNode(child, json::Child(json::Child(path, "properties"), name), false, errors);
    }
  }
  if (schema.contains("additionalProperties") && schema["additionalProperties"].is_object()) {
    CheckNode(schema["additionalProperties"], json::Child(path, "additionalProperties"), false,
              errors);
  }
  if (schema.contains("items")) {
    if (!schema["items"].is_object()) {
      errors.push_back({json::Child(path, "items"), "must be a single schema"});
    } else {
      CheckNode(schema["items"], json::Child(path, "items"), false, errors);
    }
  } else if (schema.value("type", "") == "array") {
    errors.push_back({json::Child(path, "items"), "must be set for type array"});
  }
}

void CheckNode(const Json& schema, const std::string& path, bool root, json::FieldErrors& errors) {
  if (!schema.is_object()) {
    errors.push_back({path, "must be a schema object"});
    return;
  }
  for (auto key : kForbiddenKeys) {
    if (schema.contains(key)) errors.push_back({json::Child(path, key), "must not be set"});
  }
  if (!CheckKeywordValues(schema, path, errors)) return;
  const bool int_or_string = FlagSet(schema, "x-kubernetes-int-or-string");
  const bool preserve = FlagSet(schema, "x-kubernetes-preserve-unknown-fields");
  const std::string type = schema.value("type", "");
  if (int_or_string && !type.empty()) {
    errors.push_back({json::Child(path, "type"), "must be empty with x-kubernetes-int-or-string"});
  }
  if (type.empty() && !int_or_string && !preserve) {
    errors.push_back({json::Child(path, "type"), "must not be empty for specified fields"});
  }
  if (root && schema.contains("default")) {
    errors.push_back({json::Child(path, "default"), "must not be set at the root"});
  }
  if (FlagSet(schema, "uniqueItems")) {
    errors.push_back(
        {json::Child(path, "uniqueItems"), "must not be true: use x-kubernetes-list-type"});
  }
  CheckValueValidation(schema, path, int_or_string, errors);
  CheckChildren(schema, path, errors);
}

// The server owns an object's metadata: a schema may describe it, and limit
// its name and generateName (strings), nothing else.
void CheckMetadata(const Json& metadata, json::FieldErrors& errors) {
  const std::string path = "openAPIV3Schema.properties.metadata";
  for (const auto& [key, value] : metadata.items()) {
    if (key != "type" && key != "properties" && key != "description") {
      errors.push_back({path + "." + key, "must not be set: only type is allowed for metadata"});
    }
  }
  const Json* properties = json::Member(&metadata, "properties");
  if (!properties || !properties->is_object()) return;
  for (const auto& [key, value] : properties->items()) {
    const Json* type = value.is_object() ? json::Member(&value, "type") : nullptr;
    if (key != "name" && key != "generateName") {
      errors.push_back({path + ".properties[" + key + "]",
                        "Forbidden: must not be specified: only name and generateName may be"});
    } else if (!type || *type != "string") {
      errors.push_back({path + ".properties[" + key + "].type", "must be string"});
    }
  }
}

}  // namespace

json::FieldErrors CheckStructural(const Json& schema) {
  json::FieldErrors errors;
  CheckNode(schema, "openAPIV3Schema", true, errors);
  const Json* type = schema.is_object() ? json::Member(&schema, "type") : nullptr;
  if (schema.is_object() && !(type && *type == "object")) {
    errors.push_back({"openAPIV3Schema.type", "must be object at the root"});
  }
  const Json* metadata = nullptr;
  if (schema.is_object() && schema.contains("properties") &&
      schema["properties"].contains("metadata")) {
    metadata = &schema["properties"]["metadata"];
  }
  if (metadata && metadata->is_object()) CheckMetadata(*metadata, errors);
  return errors;
}

}  // namespace gpupool::openapi
