// A structural schema read once into typed nodes: validating, defaulting and
// pruning an object against a SchemaNode looks nothing up by name in the
// schema's JSON, and names a value's path only when an error or a pruned field
// needs it. The functions of openapi_schema.h take either form.
#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpupool::openapi {

using Json = nlohmann::json;

struct SchemaNode {
  // The schema was a JSON object; anything else constrains nothing.
  bool is_schema = false;
  std::optional<std::string> type;  // As written; absent when the schema has none.
  bool nullable = false;
  bool int_or_string = false;     // x-kubernetes-int-or-string
  bool preserve_unknown = false;  // x-kubernetes-preserve-unknown-fields
  std::optional<std::vector<Json>> enum_values;
  std::optional<std::size_t> min_length, max_length, min_items, max_items, max_properties;
  // Bounds, with their text as the schema writes them (errors quote it).
  std::optional<double> minimum, maximum;
  std::string minimum_text, maximum_text;
  bool exclusive_minimum = false, exclusive_maximum = false;
  std::optional<std::string> pattern;
  // The pattern compiled (ECMAScript); null when it does not compile, which
  // CheckStructural refuses in a CRD.
  std::shared_ptr<const std::regex> pattern_regex;
  std::string format;
  std::vector<std::string> required;
  bool has_properties = false;  // `properties` is present (defaulting reads it first).
  std::vector<std::pair<std::string, SchemaNode>> properties;  // Sorted by name.
  std::unique_ptr<SchemaNode> items;
  // `additionalProperties`: a schema for the values of a map, or `true`.
  std::unique_ptr<SchemaNode> additional;
  bool additional_allowed = false;
  std::string list_type;                   // x-kubernetes-list-type
  std::vector<std::string> list_map_keys;  // x-kubernetes-list-map-keys, all strings
  bool list_map_keys_given = false;        // ... present as a non-empty array
  std::vector<SchemaNode> all_of, any_of, one_of;
  bool any_of_given = false, one_of_given = false;  // Even empty, they refuse every value.
  std::unique_ptr<SchemaNode> not_schema;
  std::optional<Json> default_value;
  Json rules = Json::array();  // x-kubernetes-validations, as written

  const SchemaNode* Property(std::string_view name) const;
  // The schema of a map's values: `additionalProperties` when it is a schema.
  const SchemaNode* Additional() const {
    return additional && additional->is_schema ? additional.get() : nullptr;
  }
  bool HasRules() const;  // Here or anywhere below.
};

SchemaNode CompileSchema(const Json& schema);

// A value's path inside an object, as FieldError paths write it ("spec.a[2].b"),
// rendered only when asked for. Each step views its parent and its field name,
// which must outlive it.
class SchemaPath {
 public:
  explicit SchemaPath(std::string_view root) : text_(root) {}
  SchemaPath(const SchemaPath& parent, std::string_view field)
      : parent_(&parent), text_(field), kind_(Kind::kField) {}
  SchemaPath(const SchemaPath& parent, std::size_t index)
      : parent_(&parent), index_(index), kind_(Kind::kIndex) {}

  std::string str() const;
  bool IsTopLevel() const { return kind_ == Kind::kRoot && text_.empty(); }

 private:
  enum class Kind { kRoot, kField, kIndex };
  const SchemaPath* parent_ = nullptr;
  std::string_view text_;
  std::size_t index_ = 0;
  Kind kind_ = Kind::kRoot;
};

}  // namespace gpupool::openapi
