#include "gpupool/openapi/schema_node.h"

#include <algorithm>
#include <cstdint>

#include "gpupool/json/field_error.h"
#include "keyword_shapes.h"

namespace gpupool::openapi {
namespace {

const Json* Find(const Json& schema, const char* key) {
  const auto found = schema.find(key);
  return found == schema.end() ? nullptr : &*found;
}

std::optional<std::string> Text(const Json& schema, const char* key) {
  const Json* value = Find(schema, key);
  if (!value || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

// A size bound; absent unless a non-negative integer (CheckStructural refuses
// any other value in a CRD).
std::optional<std::size_t> Count(const Json& schema, const char* key) {
  const Json* value = Find(schema, key);
  if (!value || !value->is_number_integer() || value->get<std::int64_t>() < 0) return std::nullopt;
  return value->get<std::size_t>();
}

void ReadBound(const Json& schema, const char* key, std::optional<double>& bound,
               std::string& text) {
  const Json* value = Find(schema, key);
  if (!value || !value->is_number()) return;
  bound = value->get<double>();
  text = value->dump();
}

std::vector<SchemaNode> Branches(const Json& schema, const char* key) {
  std::vector<SchemaNode> branches;
  const Json* list = Find(schema, key);
  if (!list || !list->is_array()) return branches;
  for (const auto& branch : *list) branches.push_back(CompileSchema(branch));
  return branches;
}

std::unique_ptr<SchemaNode> Below(const Json& schema, const char* key) {
  const Json* below = Find(schema, key);
  return below ? std::make_unique<SchemaNode>(CompileSchema(*below)) : nullptr;
}

void ReadValueChecks(const Json& schema, SchemaNode& node) {
  node.type = Text(schema, "type");
  node.nullable = FlagSet(schema, "nullable");
  node.int_or_string = FlagSet(schema, "x-kubernetes-int-or-string");
  if (const Json* options = Find(schema, "enum"); options && options->is_array())
    node.enum_values = options->get<std::vector<Json>>();
  node.min_length = Count(schema, "minLength");
  node.max_length = Count(schema, "maxLength");
  node.pattern = Text(schema, "pattern");
  if (node.pattern) {
    try {
      node.pattern_regex =
          std::make_shared<const std::regex>(*node.pattern, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
    }
  }
  node.format = Text(schema, "format").value_or("");
  ReadBound(schema, "minimum", node.minimum, node.minimum_text);
  ReadBound(schema, "maximum", node.maximum, node.maximum_text);
  node.exclusive_minimum = FlagSet(schema, "exclusiveMinimum");
  node.exclusive_maximum = FlagSet(schema, "exclusiveMaximum");
  if (const Json* rules = Find(schema, "x-kubernetes-validations"); rules && rules->is_array())
    node.rules = *rules;
  if (const Json* value = Find(schema, "default")) node.default_value = *value;
}

void ReadObjectChecks(const Json& schema, SchemaNode& node) {
  node.preserve_unknown = FlagSet(schema, "x-kubernetes-preserve-unknown-fields");
  node.max_properties = Count(schema, "maxProperties");
  if (const Json* required = Find(schema, "required"); required && required->is_array()) {
    for (const auto& name : *required)
      if (name.is_string()) node.required.push_back(name.get<std::string>());
  }
  const Json* properties = Find(schema, "properties");
  node.has_properties = properties != nullptr;
  if (properties && properties->is_object()) {
    for (const auto& [name, child] : properties->items())
      node.properties.emplace_back(name, CompileSchema(child));
  }
  if (const Json* additional = Find(schema, "additionalProperties")) {
    node.additional = std::make_unique<SchemaNode>(CompileSchema(*additional));
    node.additional_allowed = additional->is_boolean() && additional->get<bool>();
  }
}

void ReadListChecks(const Json& schema, SchemaNode& node) {
  node.min_items = Count(schema, "minItems");
  node.max_items = Count(schema, "maxItems");
  node.items = Below(schema, "items");
  node.list_type = Text(schema, "x-kubernetes-list-type").value_or("");
  const Json* keys = Find(schema, "x-kubernetes-list-map-keys");
  if (!keys || !keys->is_array()) return;
  node.list_map_keys_given = !keys->empty();
  for (const auto& key : *keys) {
    if (key.is_string())
      node.list_map_keys.push_back(key.get<std::string>());
    else
      node.list_map_keys_given = false;  // Such keys correlate nothing.
  }
}

}  // namespace

SchemaNode CompileSchema(const Json& schema) {
  SchemaNode node;
  if (!schema.is_object()) return node;
  node.is_schema = true;
  ReadValueChecks(schema, node);
  ReadObjectChecks(schema, node);
  ReadListChecks(schema, node);
  node.all_of = Branches(schema, "allOf");
  node.any_of = Branches(schema, "anyOf");
  node.one_of = Branches(schema, "oneOf");
  node.any_of_given = schema.contains("anyOf");
  node.one_of_given = schema.contains("oneOf");
  node.not_schema = Below(schema, "not");
  return node;
}

const SchemaNode* SchemaNode::Property(std::string_view name) const {
  const auto found = std::lower_bound(
      properties.begin(), properties.end(), name,
      [](const auto& property, std::string_view key) { return property.first < key; });
  return found != properties.end() && found->first == name ? &found->second : nullptr;
}

bool SchemaNode::HasRules() const {
  if (!rules.empty()) return true;
  const auto has = [](const SchemaNode& node) { return node.HasRules(); };
  for (const auto& [name, child] : properties)
    if (child.HasRules()) return true;
  for (const auto* child : {items.get(), additional.get(), not_schema.get()})
    if (child && child->HasRules()) return true;
  return std::any_of(all_of.begin(), all_of.end(), has) ||
         std::any_of(any_of.begin(), any_of.end(), has) ||
         std::any_of(one_of.begin(), one_of.end(), has);
}

std::string SchemaPath::str() const {
  switch (kind_) {
    case Kind::kRoot:
      return std::string(text_);
    case Kind::kField:
      return json::Child(parent_->str(), text_);
    case Kind::kIndex:
      return json::Child(parent_->str(), index_);
  }
  return {};
}

}  // namespace gpupool::openapi
