// Validation of values against CRD schemas, as the API server applies it.
#include <regex>
#include <set>
#include <unordered_map>

#include "gpupool/api/json_reader.h"
#include "gpupool/api/openapi_schema.h"

namespace gpupool::api {
namespace {

// A schema's properties, read in place: schemas are large and walked once per
// object level of every value checked.
const Json& PropertiesOf(const Json& schema) {
  static const Json kNone = Json::object();
  const auto properties = schema.find("properties");
  return properties != schema.end() && properties->is_object() ? *properties : kNone;
}

const Json& EmptyArray() {
  static const Json kEmpty = Json::array();
  return kEmpty;
}

bool Flag(const Json& schema, const char* key) {
  const auto found = schema.find(key);
  return found != schema.end() && found->is_boolean() && found->get<bool>();
}

// An array member read in place; empty when absent.
const Json& ArrayMember(const Json& schema, const char* key) {
  const auto found = schema.find(key);
  return found != schema.end() && found->is_array() ? *found : EmptyArray();
}

std::string Short(const Json& value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

// Compiled patterns are cached: CRD schemas are validated against many objects.
bool MatchesPattern(const std::string& pattern, const std::string& text) {
  static thread_local std::unordered_map<std::string, std::regex> cache;
  auto it = cache.find(pattern);
  if (it == cache.end()) {
    it = cache.emplace(pattern, std::regex(pattern, std::regex::ECMAScript)).first;
  }
  return std::regex_search(text, it->second);
}

bool IsDateTime(const std::string& text) {
  static const std::regex kRfc3339(
      R"(^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$)");
  return std::regex_match(text, kRfc3339);
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
  explicit Validator(FieldErrors& errors) : errors_(errors) {}

  // `old`: the value's stored counterpart on an update (nullptr on a create, or
  // where nothing correlates), for ratcheting.
  void Check(const Json& schema, const Json& value, const std::string& path,
             const Json* old = nullptr) {
    if (!schema.is_object()) return;
    if (value.is_null()) {
      if (!Flag(schema, "nullable") && schema.contains("type")) Add(path, "must not be null");
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
  void Add(const std::string& path, std::string message) {
    errors_.push_back({path, std::move(message)});
  }

  bool CheckType(const Json& schema, const Json& value, const std::string& path) {
    if (Flag(schema, "x-kubernetes-int-or-string")) {
      if (value.is_number_integer() || value.is_string()) return true;
      Add(path, "must be an integer or a string, got " + JsonTypeName(value));
      return false;
    }
    const auto found = schema.find("type");
    if (found == schema.end()) return true;
    const auto& type = found->get_ref<const std::string&>();
    if (type.empty() || TypeMatches(type, value)) return true;
    Add(path, "must be of type " + type + ", got " + JsonTypeName(value));
    return false;
  }

  void CheckEnum(const Json& schema, const Json& value, const std::string& path) {
    if (!schema.contains("enum") || !schema["enum"].is_array()) return;
    for (const auto& option : schema["enum"]) {
      if (option == value) return;
    }
    std::string options;
    for (const auto& option : schema["enum"]) {
      options += (options.empty() ? "" : ", ") + option.dump();
    }
    Add(path, "Unsupported value: " + Short(value) + ": supported values: " + options);
  }

  void CheckString(const Json& schema, const std::string& text, const std::string& path) {
    if (schema.contains("minLength") && text.size() < schema["minLength"].get<size_t>()) {
      Add(path, "must be at least " + schema["minLength"].dump() + " characters long");
    }
    if (schema.contains("maxLength") && text.size() > schema["maxLength"].get<size_t>()) {
      Add(path, "must be at most " + schema["maxLength"].dump() + " characters long");
    }
    if (schema.contains("pattern") && !MatchesPattern(schema["pattern"], text)) {
      Add(path, "\"" + text + "\" must match the pattern " + schema["pattern"].get<std::string>());
    }
    if (schema.contains("format") && schema.value("format", "") == "date-time" &&
        !IsDateTime(text)) {
      Add(path, "\"" + text + "\" must be an RFC 3339 date-time");
    }
  }

  void CheckNumber(const Json& schema, const Json& value, const std::string& path) {
    const double number = value.get<double>();
    if (schema.contains("minimum")) {
      const double minimum = schema["minimum"].get<double>();
      const bool exclusive = Flag(schema, "exclusiveMinimum");
      if (exclusive ? number <= minimum : number < minimum) {
        Add(path, std::string("must be ") + (exclusive ? "> " : ">= ") + schema["minimum"].dump());
      }
    }
    if (schema.contains("maximum")) {
      const double maximum = schema["maximum"].get<double>();
      const bool exclusive = Flag(schema, "exclusiveMaximum");
      if (exclusive ? number >= maximum : number > maximum) {
        Add(path, std::string("must be ") + (exclusive ? "< " : "<= ") + schema["maximum"].dump());
      }
    }
    if (value.is_number_integer() && schema.contains("format") &&
        schema.value("format", "") == "int32" &&
        (value.get<int64_t>() < INT32_MIN || value.get<int64_t>() > INT32_MAX)) {
      Add(path, "must fit in a 32-bit integer");
    }
  }

  void CheckArray(const Json& schema, const Json& list, const std::string& path, const Json* old) {
    if (schema.contains("minItems") && list.size() < schema["minItems"].get<size_t>()) {
      Add(path, "must have at least " + schema["minItems"].dump() + " items");
    }
    if (schema.contains("maxItems") && list.size() > schema["maxItems"].get<size_t>()) {
      Add(path, "must have at most " + schema["maxItems"].dump() + " items");
    }
    CheckListType(schema, list, path);
    if (!schema.contains("items")) return;
    const ListCorrelation correlation(schema, old);
    for (size_t i = 0; i < list.size(); ++i) {
      const Json* was = correlation.Find(list[i]);
      if (was && *was == list[i]) continue;  // Unchanged: ratcheted.
      Check(schema["items"], list[i], Child(path, i), was);
    }
  }

  void CheckListType(const Json& schema, const Json& list, const std::string& path) {
    if (!schema.contains("x-kubernetes-list-type")) return;
    const std::string list_type = schema.value("x-kubernetes-list-type", "");
    if (list_type != "set" && list_type != "map") return;
    std::set<std::string> seen;
    for (size_t i = 0; i < list.size(); ++i) {
      Json key = list[i];
      if (list_type == "map") {
        key = Json::array();
        for (const auto& name : schema.value("x-kubernetes-list-map-keys", Json::array())) {
          key.push_back(list[i].is_object() ? list[i].value(name.get<std::string>(), Json())
                                            : Json());
        }
      }
      if (!seen.insert(key.dump()).second) Add(Child(path, i), "Duplicate value: " + Short(key));
    }
  }

  void CheckObject(const Json& schema, const Json& object, const std::string& path,
                   const Json* old) {
    const auto required = schema.find("required");
    for (const auto& name : required != schema.end() ? *required : EmptyArray()) {
      const std::string key = name.get<std::string>();
      if (!object.contains(key)) Add(Child(path, key), "Required value");
    }
    const Json& properties = PropertiesOf(schema);
    for (const auto& [key, value] : object.items()) {
      const Json* was = Member(old, key);
      if (was && *was == value) continue;  // Unchanged: ratcheted.
      const auto property = properties.find(key);
      if (property != properties.end()) {
        Check(*property, value, Child(path, key), was);
      } else if (schema.contains("additionalProperties") &&
                 schema["additionalProperties"].is_object()) {
        Check(schema["additionalProperties"], value, Child(path, key), was);
      }
    }
    if (schema.contains("maxProperties") && object.size() > schema["maxProperties"].get<size_t>()) {
      Add(path, "must have at most " + schema["maxProperties"].dump() + " properties");
    }
  }

  // Value validations: branches are checked for their constraints only.
  void CheckCombinators(const Json& schema, const Json& value, const std::string& path,
                        const Json* old) {
    if (Flag(schema, "x-kubernetes-int-or-string")) return;
    for (const auto& branch : ArrayMember(schema, "allOf")) Check(branch, value, path, old);
    if (schema.contains("anyOf") && CountPassing(schema["anyOf"], value, path) == 0) {
      Add(path, "must match at least one schema of anyOf");
    }
    if (schema.contains("oneOf") && CountPassing(schema["oneOf"], value, path) != 1) {
      Add(path, "must match exactly one schema of oneOf");
    }
    if (schema.contains("not") && CountPassing(Json::array({schema["not"]}), value, path) == 1) {
      Add(path, "must not match the schema in not");
    }
  }

  size_t CountPassing(const Json& branches, const Json& value, const std::string& path) {
    size_t passing = 0;
    for (const auto& branch : branches) {
      FieldErrors branch_errors;
      Validator(branch_errors).Check(branch, value, path);
      if (branch_errors.empty()) ++passing;
    }
    return passing;
  }

  FieldErrors& errors_;
};

// The item's keys as one text, or "" when it lacks one (it correlates with nothing).
std::string ListKey(const Json& keys, const Json& item) {
  if (!item.is_object()) return "";
  Json values = Json::array();
  for (const auto& key : keys) {
    const Json* value =
        key.is_string() ? Member(&item, key.get_ref<const std::string&>()) : nullptr;
    if (!value) return "";
    values.push_back(*value);
  }
  return values.dump();
}

}  // namespace

ListCorrelation::ListCorrelation(const Json& list_schema, const Json* old_list) {
  if (!old_list || !old_list->is_array() || !list_schema.is_object()) return;
  if (list_schema.value("x-kubernetes-list-type", Json()) != "map") return;
  const auto keys = list_schema.find("x-kubernetes-list-map-keys");
  if (keys == list_schema.end() || !keys->is_array() || keys->empty()) return;
  keys_ = &*keys;
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

FieldErrors ValidateAgainstSchema(const Json& schema, const Json& value, const std::string& path) {
  FieldErrors errors;
  Validator(errors).Check(schema, value, path);
  return errors;
}

FieldErrors ValidateUpdateAgainstSchema(const Json& schema, const Json& value, const Json& old) {
  FieldErrors errors;
  if (value != old) Validator(errors).Check(schema, value, "", &old);
  return errors;
}

void ApplyDefaults(const Json& schema, Json& value) {
  if (!schema.is_object()) return;
  if (value.is_object() && schema.contains("properties")) {
    for (const auto& [key, child] : schema["properties"].items()) {
      if (!value.contains(key) && child.contains("default")) value[key] = child["default"];
      if (value.contains(key)) ApplyDefaults(child, value[key]);
    }
  } else if (value.is_object() && schema.contains("additionalProperties")) {
    for (auto& [key, child] : value.items()) ApplyDefaults(schema["additionalProperties"], child);
  } else if (value.is_array() && schema.contains("items")) {
    for (auto& item : value) ApplyDefaults(schema["items"], item);
  }
}

std::vector<std::string> Prune(const Json& schema, Json& value, const std::string& path) {
  std::vector<std::string> removed;
  if (!schema.is_object()) return removed;
  const bool preserve = Flag(schema, "x-kubernetes-preserve-unknown-fields");
  if (value.is_object()) {
    const Json& properties = PropertiesOf(schema);
    const Json* additional =
        schema.contains("additionalProperties") && schema["additionalProperties"].is_object()
            ? &schema["additionalProperties"]
            : nullptr;
    const bool keep_all = preserve || Flag(schema, "additionalProperties");
    for (auto it = value.begin(); it != value.end();) {
      const std::string key = it.key();
      const bool type_meta =
          path.empty() && (key == "apiVersion" || key == "kind" || key == "metadata");
      const Json* child = properties.contains(key) ? &properties[key] : additional;
      if (!child && !keep_all && !type_meta) {
        removed.push_back(Child(path, key));
        it = value.erase(it);
        continue;
      }
      if (child && !type_meta) {
        auto below = Prune(*child, it.value(), Child(path, key));
        removed.insert(removed.end(), below.begin(), below.end());
      }
      ++it;
    }
  } else if (value.is_array() && schema.contains("items")) {
    for (size_t i = 0; i < value.size(); ++i) {
      auto below = Prune(schema["items"], value[i], Child(path, i));
      removed.insert(removed.end(), below.begin(), below.end());
    }
  }
  return removed;
}

}  // namespace gpupool::api
