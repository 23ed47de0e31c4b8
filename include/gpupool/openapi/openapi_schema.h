// OpenAPI v3 structural schemas as used by CustomResourceDefinitions:
// checking that a schema is structural, and validating, defaulting and
// pruning objects against one. CEL rules (x-kubernetes-validations) are
// evaluated by cel.h, which the caller runs on the nodes that carry them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpupool/json/field_error.h"
#include "gpupool/openapi/schema_node.h"

namespace gpupool::openapi {

using Json = nlohmann::json;

// Errors that make `schema` non-structural (a node without `type`, forbidden
// keys such as `$ref` or `additionalProperties` beside `properties`, types in
// value validations, ...), with paths inside the schema.
json::FieldErrors CheckStructural(const Json& schema);

// The first keyword whose value the API server's decoder cannot read into its
// typed field, in the decoder's words: "json: cannot unmarshal string into Go
// struct field JSONSchemaProps.<go_path>.properties.minLength of type int64"
// (Go's path names fields only, not map keys or list indices). Empty if none.
std::string KeywordDecodeError(const Json& schema, const std::string& go_path);

// Validates `value` against `schema`: type (with x-kubernetes-int-or-string and
// x-kubernetes-preserve-unknown-fields), required, enum, minimum/maximum
// (exclusive too), minLength/maxLength, minItems/maxItems, pattern, format
// (date-time, int32, int64), nullable, anyOf/allOf/oneOf/not as value checks,
// additionalProperties for maps. `path` prefixes every error path.
json::FieldErrors ValidateAgainstSchema(const Json& schema, const Json& value,
                                        const std::string& path = "");
json::FieldErrors ValidateAgainstSchema(const SchemaNode& schema, const Json& value,
                                        const std::string& path = "");

// As ValidateAgainstSchema for an update of `old` to `value`, with the API
// server's validation ratcheting (on by default since Kubernetes 1.30): a member
// of an object equal to its counterpart in the old object is not validated, nor
// is an item of an x-kubernetes-list-type map list equal to the old item with
// its keys, so an update is refused only for what it changes. Other lists are
// not correlated, and an unchanged member's allOf/anyOf/oneOf/not are skipped
// with the rest (the server checks those without ratcheting).
json::FieldErrors ValidateUpdateAgainstSchema(const Json& schema, const Json& value,
                                              const Json& old);
json::FieldErrors ValidateUpdateAgainstSchema(const SchemaNode& schema, const Json& value,
                                              const Json& old);

// The items of an update's old list that its new items correlate with, for
// ratcheting: in an x-kubernetes-list-type map list, the one old item with the
// same keys; none in other lists, or when no single old item has those keys.
class ListCorrelation {
 public:
  // `old_list` may be null (a create, or nothing to correlate with).
  ListCorrelation(const SchemaNode& list_schema, const Json* old_list);
  const Json* Find(const Json& item) const;

 private:
  // x-kubernetes-list-map-keys; null when not a map list
  const std::vector<std::string>* keys_ = nullptr;
  std::unordered_map<std::string, const Json*> by_key_;  // nullptr: a key repeated
};

// Fills in `default` values of absent fields, recursively, as the API server
// does before validation.
void ApplyDefaults(const Json& schema, Json& value);
void ApplyDefaults(const SchemaNode& schema, Json& value);

// Removes fields the schema does not know (unless preserved by
// x-kubernetes-preserve-unknown-fields); returns the paths it removed.
std::vector<std::string> Prune(const Json& schema, Json& value, const std::string& path = "");
std::vector<std::string> Prune(const SchemaNode& schema, Json& value, const std::string& path = "");

}  // namespace gpupool::openapi
