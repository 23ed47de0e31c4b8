// Defaulting and pruning of values against CRD schemas, as the API server
// applies them before validation.
#include "gpupool/openapi/openapi_schema.h"

namespace gpupool::openapi {
namespace {

bool IsTypeOrMetadata(const std::string& key) {
  return key == "apiVersion" || key == "kind" || key == "metadata";
}

void PruneInto(const SchemaNode& schema, Json& value, const SchemaPath& path,
               std::vector<std::string>& removed) {
  if (!schema.is_schema) return;
  if (value.is_array() && schema.items) {
    for (size_t i = 0; i < value.size(); ++i)
      PruneInto(*schema.items, value[i], SchemaPath(path, i), removed);
    return;
  }
  if (!value.is_object()) return;
  const bool keep_all = schema.preserve_unknown || schema.additional_allowed;
  for (auto it = value.begin(); it != value.end();) {
    const std::string& key = it.key();
    // The top level's type and object metadata are the server's, not the schema's.
    const bool type_meta = path.IsTopLevel() && IsTypeOrMetadata(key);
    const SchemaNode* child = schema.Property(key);
    if (!child) child = schema.Additional();
    if (!child && !keep_all && !type_meta) {
      removed.push_back(SchemaPath(path, key).str());
      it = value.erase(it);
      continue;
    }
    if (child && !type_meta) PruneInto(*child, it.value(), SchemaPath(path, key), removed);
    ++it;
  }
}

}  // namespace

void ApplyDefaults(const SchemaNode& schema, Json& value) {
  if (!schema.is_schema) return;
  if (value.is_object() && schema.has_properties) {
    for (const auto& [key, child] : schema.properties) {
      auto member = value.find(key);
      if (member == value.end()) {
        if (!child.default_value) continue;
        member = value.emplace(key, *child.default_value).first;
      }
      ApplyDefaults(child, *member);
    }
  } else if (value.is_object() && schema.additional) {
    for (auto& [key, member] : value.items()) ApplyDefaults(*schema.additional, member);
  } else if (value.is_array() && schema.items) {
    for (auto& item : value) ApplyDefaults(*schema.items, item);
  }
}

std::vector<std::string> Prune(const SchemaNode& schema, Json& value, const std::string& path) {
  std::vector<std::string> removed;
  PruneInto(schema, value, SchemaPath(path), removed);
  return removed;
}

void ApplyDefaults(const Json& schema, Json& value) { ApplyDefaults(CompileSchema(schema), value); }

std::vector<std::string> Prune(const Json& schema, Json& value, const std::string& path) {
  return Prune(CompileSchema(schema), value, path);
}

}  // namespace gpupool::openapi
