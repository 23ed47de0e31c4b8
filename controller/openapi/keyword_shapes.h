// The JSON types of schema keywords' values, as the API server's decoder of
// JSONSchemaProps reads them.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

namespace gpupool::openapi {

// What a keyword's value must be: the API server decodes a schema into typed
// fields, so a value of another type refuses the whole definition.
enum class Shape { kCount, kNumber, kString, kBoolean, kStrings, kList, kObject };

inline constexpr std::pair<std::string_view, Shape> kKeywordShapes[] = {
    {"minLength", Shape::kCount},
    {"maxLength", Shape::kCount},
    {"minItems", Shape::kCount},
    {"maxItems", Shape::kCount},
    {"minProperties", Shape::kCount},
    {"maxProperties", Shape::kCount},
    {"minimum", Shape::kNumber},
    {"maximum", Shape::kNumber},
    {"multipleOf", Shape::kNumber},
    {"type", Shape::kString},
    {"format", Shape::kString},
    {"pattern", Shape::kString},
    {"description", Shape::kString},
    {"title", Shape::kString},
    {"x-kubernetes-list-type", Shape::kString},
    {"x-kubernetes-map-type", Shape::kString},
    {"nullable", Shape::kBoolean},
    {"exclusiveMinimum", Shape::kBoolean},
    {"exclusiveMaximum", Shape::kBoolean},
    {"uniqueItems", Shape::kBoolean},
    {"x-kubernetes-int-or-string", Shape::kBoolean},
    {"x-kubernetes-preserve-unknown-fields", Shape::kBoolean},
    {"x-kubernetes-embedded-resource", Shape::kBoolean},
    {"required", Shape::kStrings},
    {"x-kubernetes-list-map-keys", Shape::kStrings},
    {"enum", Shape::kList},
    {"x-kubernetes-validations", Shape::kList},
    {"properties", Shape::kObject},
};

// Whether a boolean keyword is present and true.
inline bool FlagSet(const nlohmann::json& schema, const char* key) {
  const auto found = schema.find(key);
  return found != schema.end() && found->is_boolean() && found->get<bool>();
}

}  // namespace gpupool::openapi
