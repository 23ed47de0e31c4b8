#include "unknown_fields.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/openapi/openapi_schema.h"

namespace gpupool::cli {
namespace {

using Json = nlohmann::json;

// metav1.ObjectMeta: the API server decodes metadata strictly whatever the CRD says.
constexpr std::array<std::string_view, 15> kObjectMetaFields = {"name",
                                                                "generateName",
                                                                "namespace",
                                                                "selfLink",
                                                                "uid",
                                                                "resourceVersion",
                                                                "generation",
                                                                "creationTimestamp",
                                                                "deletionTimestamp",
                                                                "labels",
                                                                "annotations",
                                                                "ownerReferences",
                                                                "finalizers",
                                                                "managedFields",
                                                                "deletionGracePeriodSeconds"};

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// A typo is at most two edits away; anything further is a different word.
std::optional<std::string> ClosestName(std::string_view unknown,
                                       const std::vector<std::string>& declared) {
  std::optional<std::string> best;
  size_t best_distance = 3;
  for (const auto& name : declared) {
    const size_t distance = EditDistance(unknown, name);
    if (distance < best_distance) {
      best = name;
      best_distance = distance;
    }
  }
  return best;
}

std::string UnknownFieldMessage(std::string_view key, const std::vector<std::string>& declared) {
  auto closest = ClosestName(key, declared);
  return closest ? "unknown field, did you mean " + *closest + "?" : "unknown field";
}

// The schema node `path` (as Prune writes it: "spec.quotas[0]") leads to.
const Json* SchemaAt(const Json& schema, std::string_view path) {
  const Json* node = &schema;
  while (!path.empty() && node) {
    if (path.front() == '.') {
      path.remove_prefix(1);
      continue;
    }
    if (path.front() == '[') {
      path.remove_prefix(std::min(path.find(']') + 1, path.size()));
      node = node->contains("items") ? &(*node)["items"] : nullptr;
      continue;
    }
    const size_t end = std::min(path.find_first_of(".["), path.size());
    const std::string key(path.substr(0, end));
    path.remove_prefix(end);
    if (node->contains("properties") && (*node)["properties"].contains(key)) {
      node = &(*node)["properties"][key];
    } else if (node->contains("additionalProperties")) {
      node = &(*node)["additionalProperties"];
    } else {
      node = nullptr;
    }
  }
  return node && node->is_object() ? node : nullptr;
}

std::vector<std::string> DeclaredNames(const Json* schema) {
  std::vector<std::string> names;
  if (!schema || !schema->contains("properties")) return names;
  for (const auto& [name, ignored] : (*schema)["properties"].items()) names.push_back(name);
  return names;
}

// Splits "spec.template.foo" into the parent path and the last key.
std::pair<std::string_view, std::string_view> SplitLastKey(std::string_view path) {
  const size_t dot = path.rfind('.');
  if (dot == std::string_view::npos) return {"", path};
  return {path.substr(0, dot), path.substr(dot + 1)};
}

void AddUnknownMetadataFields(const Json& object, json::FieldErrors& errors) {
  if (!object.contains("metadata") || !object["metadata"].is_object()) return;
  const std::vector<std::string> declared(kObjectMetaFields.begin(), kObjectMetaFields.end());
  for (const auto& [key, ignored] : object["metadata"].items()) {
    if (std::find(declared.begin(), declared.end(), key) != declared.end()) continue;
    errors.push_back({json::Child("metadata", key), UnknownFieldMessage(key, declared)});
  }
}

}  // namespace

json::FieldErrors UnknownFields(const Json& schema, const Json& object) {
  json::FieldErrors errors;
  AddUnknownMetadataFields(object, errors);
  Json pruned = object;
  for (const auto& path : openapi::Prune(schema, pruned)) {
    const auto [parent, key] = SplitLastKey(path);
    errors.push_back({path, UnknownFieldMessage(key, DeclaredNames(SchemaAt(schema, parent)))});
  }
  return errors;
}

}  // namespace gpupool::cli
