// Validation of values against CRD schemas, as the API server applies it.
#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <string_view>

#include "gpupool/json/reader.h"
#include "gpupool/openapi/openapi_schema.h"

namespace gpupool::openapi {
namespace {

std::string Short(const Json& value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

// Digits at `at`, `count` of them; `at` moves past them.
bool Digits(std::string_view text, std::size_t& at, std::size_t count) {
  for (std::size_t end = at + count; at < end; ++at)
    if (at >= text.size() || !std::isdigit(static_cast<unsigned char>(text[at]))) return false;
  return true;
}

bool Char(std::string_view text, std::size_t& at, std::string_view options) {
  if (at >= text.size() || options.find(text[at]) == std::string_view::npos) return false;
  ++at;
  return true;
}

// RFC 3339: 2006-01-02T15:04:05, an optional fraction, then Z or an offset.
bool IsDateTime(std::string_view text) {
  std::size_t at = 0;
  if (!(Digits(text, at, 4) && Char(text, at, "-") && Digits(text, at, 2) && Char(text, at, "-") &&
        Digits(text, at, 2) && Char(text, at, "Tt ") && Digits(text, at, 2) &&
        Char(text, at, ":") && Digits(text, at, 2) && Char(text, at, ":") && Digits(text, at, 2)))
    return false;
  if (Char(text, at, ".")) {
    if (!Digits(text, at, 1)) return false;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
  }
  if (Char(text, at, "Zz")) return at == text.size();
  return Char(text, at, "+-") && Digits(text, at, 2) && Char(text, at, ":") &&
         Digits(text, at, 2) && at == text.size();
}

bool TypeMatches(const std::string& type, const Json& value) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number();
  if (type == "boolean") return value.is_boolean();
  return true;
}

class Validator {
 public:
  explicit Validator(json::FieldErrors& errors) : errors_(errors) {}

  // `old`: the value's stored counterpart on an update (nullptr on a create, or
  // where nothing correlates), for ratcheting.
  void Check(const SchemaNode& schema, const Json& value, const SchemaPath& path,
             const Json* old = nullptr) {
    if (!schema.is_schema) return;
    if (value.is_null()) {
      if (!schema.nullable && schema.type) Add(path, "must not be null");
      return;
    }
    if (!CheckType(schema, value, path)) return;
    CheckEnum(schema, value, path);
    if (value.is_string()) CheckString(schema, value.get_ref<const std::string&>(), path);
    if (value.is_number()) CheckNumber(schema, value, path);
    if (value.is_array()) CheckArray(schema, value, path, old);
    if (value.is_object()) CheckObject(schema, value, path, old);
    CheckCombinators(schema, value, path, old);
  }

 private:
  void Add(const SchemaPath& path, std::string message) {
    errors_.push_back({path.str(), std::move(message)});
  }

  bool CheckType(const SchemaNode& schema, const Json& value, const SchemaPath& path) {
    if (schema.int_or_string) {
      if (value.is_number_integer() || value.is_string()) return true;
      Add(path, "must be an integer or a string, got " + json::TypeName(value));
      return false;
    }
    if (!schema.type || schema.type->empty() || TypeMatches(*schema.type, value)) return true;
    Add(path, "must be of type " + *schema.type + ", got " + json::TypeName(value));
    return false;
  }

  void CheckEnum(const SchemaNode& schema, const Json& value, const SchemaPath& path) {
    if (!schema.enum_values) return;
    for (const auto& option : *schema.enum_values) {
      if (option == value) return;
    }
    std::string options;
    for (const auto& option : *schema.enum_values) {
      options += (options.empty() ? "" : ", ") + option.dump();
    }
    Add(path, "Unsupported value: " + Short(value) + ": supported values: " + options);
  }

  void CheckString(const SchemaNode& schema, const std::string& text, const SchemaPath& path) {
    if (schema.min_length && text.size() < *schema.min_length) {
      Add(path, "must be at least " + std::to_string(*schema.min_length) + " characters long");
    }
    if (schema.max_length && text.size() > *schema.max_length) {
      Add(path, "must be at most " + std::to_string(*schema.max_length) + " characters long");
    }
    if (schema.pattern_regex && !std::regex_search(text, *schema.pattern_regex)) {
      Add(path, "\"" + text + "\" must match the pattern " + *schema.pattern);
    }
    if (schema.format == "date-time" && !IsDateTime(text)) {
      Add(path, "\"" + text + "\" must be an RFC 3339 date-time");
    }
  }

  void CheckNumber(const SchemaNode& schema, const Json& value, const SchemaPath& path) {
    const double number = value.get<double>();
    if (schema.minimum) {
      const bool exclusive = schema.exclusive_minimum;
      if (exclusive ? number <= *schema.minimum : number < *schema.minimum) {
        Add(path, std::string("must be ") + (exclusive ? "> " : ">= ") + schema.minimum_text);
      }
    }
    if (schema.maximum) {
      const bool exclusive = schema.exclusive_maximum;
      if (exclusive ? number >= *schema.maximum : number > *schema.maximum) {
        Add(path, std::string("must be ") + (exclusive ? "< " : "<= ") + schema.maximum_text);
      }
    }
  }

  void CheckArray(const SchemaNode& schema, const Json& list, const SchemaPath& path,
                  const Json* old) {
    if (schema.min_items && list.size() < *schema.min_items) {
      Add(path, "must have at least " + std::to_string(*schema.min_items) + " items");
    }
    if (schema.max_items && list.size() > *schema.max_items) {
      Add(path, "must have at most " + std::to_string(*schema.max_items) + " items");
    }
    CheckListType(schema, list, path);
    if (!schema.items) return;
    const ListCorrelation correlation(schema, old);
    for (size_t i = 0; i < list.size(); ++i) {
      const Json* was = correlation.Find(list[i]);
      if (was && *was == list[i]) continue;  // Unchanged: ratcheted.
      Check(*schema.items, list[i], SchemaPath(path, i), was);
    }
  }

  void CheckListType(const SchemaNode& schema, const Json& list, const SchemaPath& path) {
    if (schema.list_type != "set" && schema.list_type != "map") return;
    std::set<std::string> seen;
    for (size_t i = 0; i < list.size(); ++i) {
      Json key = list[i];
      if (schema.list_type == "map") {
        key = Json::array();
        for (const auto& name : schema.list_map_keys) {
          const Json* value = json::Member(&list[i], name);
          key.push_back(value ? *value : Json());
        }
      }
      if (!seen.insert(key.dump()).second)
        Add(SchemaPath(path, i), "Duplicate value: " + Short(key));
    }
  }

  void CheckObject(const SchemaNode& schema, const Json& object, const SchemaPath& path,
                   const Json* old) {
    for (const auto& key : schema.required) {
      if (!object.contains(key)) Add(SchemaPath(path, key), "Required value");
    }
    for (const auto& [key, value] : object.items()) {
      const Json* was = json::Member(old, key);
      if (was && *was == value) continue;  // Unchanged: ratcheted.
      const SchemaNode* property = schema.Property(key);
      if (!property) property = schema.Additional();
      if (property) Check(*property, value, SchemaPath(path, key), was);
    }
    if (schema.max_properties && object.size() > *schema.max_properties) {
      Add(path, "must have at most " + std::to_string(*schema.max_properties) + " properties");
    }
  }

  // Value validations: branches are checked for their constraints only.
  void CheckCombinators(const SchemaNode& schema, const Json& value, const SchemaPath& path,
                        const Json* old) {
    if (schema.int_or_string) return;
    for (const auto& branch : schema.all_of) Check(branch, value, path, old);
    if (schema.any_of_given && CountPassing(schema.any_of, value, path) == 0) {
      Add(path, "must match at least one schema of anyOf");
    }
    if (schema.one_of_given && CountPassing(schema.one_of, value, path) != 1) {
      Add(path, "must match exactly one schema of oneOf");
    }
    if (schema.not_schema && Passes(*schema.not_schema, value, path)) {
      Add(path, "must not match the schema in not");
    }
  }

  static bool Passes(const SchemaNode& branch, const Json& value, const SchemaPath& path) {
    json::FieldErrors branch_errors;
    Validator(branch_errors).Check(branch, value, path);
    return branch_errors.empty();
  }

  static size_t CountPassing(const std::vector<SchemaNode>& branches, const Json& value,
                             const SchemaPath& path) {
    return static_cast<size_t>(
        std::count_if(branches.begin(), branches.end(),
                      [&](const SchemaNode& branch) { return Passes(branch, value, path); }));
  }

  json::FieldErrors& errors_;
};

// The item's keys as one text, or "" when it lacks one (it correlates with nothing).
std::string ListKey(const std::vector<std::string>& keys, const Json& item) {
  if (!item.is_object()) return "";
  Json values = Json::array();
  for (const auto& key : keys) {
    const Json* value = json::Member(&item, key);
    if (!value) return "";
    values.push_back(*value);
  }
  return values.dump();
}

}  // namespace

ListCorrelation::ListCorrelation(const SchemaNode& list_schema, const Json* old_list) {
  if (!old_list || !old_list->is_array() || list_schema.list_type != "map") return;
  if (!list_schema.list_map_keys_given) return;
  keys_ = &list_schema.list_map_keys;
  for (const auto& item : *old_list) {
    const std::string key = ListKey(*keys_, item);
    if (key.empty()) continue;
    const auto [at, added] = by_key_.emplace(key, &item);
    if (!added) at->second = nullptr;
  }
}

const Json* ListCorrelation::Find(const Json& item) const {
  if (!keys_) return nullptr;
  const auto found = by_key_.find(ListKey(*keys_, item));
  return found != by_key_.end() ? found->second : nullptr;
}

json::FieldErrors ValidateAgainstSchema(const SchemaNode& schema, const Json& value,
                                        const std::string& path) {
  json::FieldErrors errors;
  Validator(errors).Check(schema, value, SchemaPath(path));
  return errors;
}

json::FieldErrors ValidateUpdateAgainstSchema(const SchemaNode& schema, const Json& value,
                                              const Json& old) {
  json::FieldErrors errors;
  if (value != old) Validator(errors).Check(schema, value, SchemaPath(""), &old);
  return errors;
}

json::FieldErrors ValidateAgainstSchema(const Json& schema, const Json& value,
                                        const std::string& path) {
  return ValidateAgainstSchema(CompileSchema(schema), value, path);
}

json::FieldErrors ValidateUpdateAgainstSchema(const Json& schema, const Json& value,
                                              const Json& old) {
  return ValidateUpdateAgainstSchema(CompileSchema(schema), value, old);
}

}  // namespace gpupool::openapi
