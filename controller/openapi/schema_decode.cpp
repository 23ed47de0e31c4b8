// The first keyword of a CRD schema that the API server's decoder cannot read
// into its typed field.
#include <string>

#include "gpupool/openapi/openapi_schema.h"
#include "keyword_shapes.h"

namespace gpupool::openapi {
namespace {

// Go's name for the Go type a keyword decodes into.
const char* GoType(std::string_view key, Shape shape) {
  switch (shape) {
    case Shape::kCount:
      return "int64";
    case Shape::kNumber:
      return "float64";
    case Shape::kString:
    case Shape::kStrings:
      return "string";
    case Shape::kBoolean:
      return "bool";
    case Shape::kList:
      return key == "enum" ? "[]v1.JSON" : "v1.ValidationRules";
    case Shape::kObject:
      return "map[string]v1.JSONSchemaProps";
  }
  return "";
}

// How Go's decoder names the JSON value it could not store: its kind, and for
// a number meant for an integer, the number too.
std::string JsonKind(const Json& value, Shape shape) {
  if (value.is_string()) return "string";
  if (value.is_boolean()) return "bool";
  if (value.is_array()) return "array";
  if (value.is_object()) return "object";
  if (shape == Shape::kCount) return "number " + value.dump();
  return "number";
}

// Whether Go decodes `value` into the keyword's type (null decodes into any).
bool Decodes(const Json& value, Shape shape) {
  if (value.is_null()) return true;
  switch (shape) {
    case Shape::kCount:
      return value.is_number_integer();
    case Shape::kNumber:
      return value.is_number();
    case Shape::kString:
      return value.is_string();
    case Shape::kBoolean:
      return value.is_boolean();
    case Shape::kStrings:
    case Shape::kList:
      return value.is_array();
    case Shape::kObject:
      return value.is_object();
  }
  return true;
}

std::string Unmarshal(const std::string& kind, const std::string& field, const char* type) {
  return "json: cannot unmarshal " + kind + " into Go struct field JSONSchemaProps." + field +
         " of type " + type;
}

std::string OwnKeywordError(const Json& schema, const std::string& go_path) {
  for (const auto& [key, shape] : kKeywordShapes) {
    const auto found = schema.find(std::string(key));
    if (found == schema.end()) continue;
    const std::string field = go_path + "." + std::string(key);
    if (!Decodes(*found, shape))
      return Unmarshal(JsonKind(*found, shape), field, GoType(key, shape));
    if (shape != Shape::kStrings) continue;
    for (const auto& item : *found) {
      if (!item.is_string() && !item.is_null())
        return Unmarshal(JsonKind(item, shape), field, "string");
    }
  }
  return "";
}

}  // namespace

std::string KeywordDecodeError(const Json& schema, const std::string& go_path) {
  if (!schema.is_object()) return "";
  std::string error = OwnKeywordError(schema, go_path);
  if (!error.empty()) return error;
  // Map keys and list indices are not part of Go's field path.
  const auto properties = schema.find("properties");
  if (properties != schema.end() && properties->is_object()) {
    for (const auto& [name, child] : properties->items()) {
      error = KeywordDecodeError(child, go_path + ".properties");
      if (!error.empty()) return error;
    }
  }
  for (const char* key : {"items", "additionalProperties", "not"}) {
    const auto child = schema.find(key);
    if (child == schema.end()) continue;
    error = KeywordDecodeError(*child, go_path + "." + key);
    if (!error.empty()) return error;
  }
  for (const char* key : {"allOf", "anyOf", "oneOf"}) {
    const auto branches = schema.find(key);
    if (branches == schema.end() || !branches->is_array()) continue;
    for (const auto& branch : *branches) {
      error = KeywordDecodeError(branch, go_path + "." + key);
      if (!error.empty()) return error;
    }
  }
  return "";
}

}  // namespace gpupool::openapi
