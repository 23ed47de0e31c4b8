#include "sandbox/store/apply.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "sandbox/api_error.h"
#include "sandbox/store/field_walk.h"
#include "sandbox/store/managed_fields.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

Json WithoutNulls(const Json& value) {
  if (value.is_array()) {
    Json items = Json::array();
    for (const auto& item : value) items.push_back(WithoutNulls(item));
    return items;
  }
  if (!value.is_object()) return value;
  Json object = Json::object();
  for (const auto& [name, field] : value.items()) {
    if (!field.is_null()) object[name] = WithoutNulls(field);
  }
  return object;
}

Json Merge(const Json* live, const Json& config, const FieldShapes& shapes);

Json MergeItems(const Json& live, const Json& config, const ListShape& shape,
                const FieldShapes& shapes) {
  Json merged = live;
  std::map<std::string, size_t> positions;
  for (size_t i = 0; i < merged.size(); ++i) positions[ItemStep(shape, merged[i])] = i;
  for (const auto& item : config) {
    const auto found = positions.find(ItemStep(shape, item));
    if (found == positions.end()) {
      merged.push_back(WithoutNulls(item));
    } else if (shape.kind == ListShape::Kind::kMap) {
      Json& existing = merged[found->second];
      existing = Merge(&existing, item, shapes.Item());
    }
  }
  return merged;
}

// The configuration's values over the live ones; a null removes a field.
Json Merge(const Json* live, const Json& config, const FieldShapes& shapes) {
  if (live && live->is_object() && config.is_object()) {
    Json merged = *live;
    for (const auto& [name, value] : config.items()) {
      if (value.is_null()) {
        merged.erase(name);
        continue;
      }
      const auto found = live->find(name);
      merged[name] = Merge(found == live->end() ? nullptr : &*found, value, shapes.Field(name));
    }
    return merged;
  }
  if (live && live->is_array() && config.is_array()) {
    const ListShape shape = shapes.List(config);
    const ListShape live_shape = shapes.List(*live);
    if (IsKeyed(shape) && shape.kind == live_shape.kind && shape.keys == live_shape.keys) {
      return MergeItems(*live, config, shape, shapes);
    }
  }
  return WithoutNulls(config);
}

// What an apply may write: only status through /status; no status through
// the main resource of a kind that has the subresource.
Json ScopeConfig(const ResourceType& resource, const Json& config, const std::string& subresource) {
  if (subresource == "status") {
    Json scoped = {{"apiVersion", config.value("apiVersion", Json())},
                   {"kind", config.value("kind", Json())}};
    const Json& metadata = MetadataOf(config);
    scoped["metadata"] = {{"name", metadata.value("name", Json())}};
    if (metadata.contains("namespace")) scoped["metadata"]["namespace"] = metadata["namespace"];
    if (config.contains("status")) scoped["status"] = config.at("status");
    return scoped;
  }
  Json scoped = config;
  if (resource.status_subresource) scoped.erase("status");
  return scoped;
}

// The members of `candidates` nothing in `owned` holds, at or below them.
void CollectUnowned(const FieldSet& candidates, const FieldSet* owned, FieldSet& out) {
  if (candidates.member() && !owned) out.Mark();
  for (const auto& [step, child] : candidates.children()) {
    CollectUnowned(child, owned ? owned->Find(step) : nullptr, out.Child(step));
  }
}

FieldSet Unowned(const FieldSet& candidates, const FieldSet& owned) {
  FieldSet unowned;
  CollectUnowned(candidates, &owned, unowned);
  unowned.DropEmpty();
  return unowned;
}

// How a conflict names a manager: "kubectl", or for a writer that did not
// apply, "kubectl-client-side-apply" using v1.
std::string PrintManager(const ManagedEntry& entry) {
  std::string printed = Json(entry.manager).dump();
  if (!entry.subresource.empty()) {
    printed += " with subresource " + Json(entry.subresource).dump();
  }
  if (entry.operation == "Update") printed += " using " + entry.api_version;
  return printed;
}

struct ManagerConflict {
  const ManagedEntry* entry;
  std::vector<std::string> paths;
};

ApiError ConflictError(std::vector<ManagerConflict> conflicts) {
  std::sort(conflicts.begin(), conflicts.end(),
            [](const ManagerConflict& a, const ManagerConflict& b) {
              return std::tie(a.entry->manager, a.entry->operation, a.entry->subresource) <
                     std::tie(b.entry->manager, b.entry->operation, b.entry->subresource);
            });
  Json causes = Json::array();
  std::string listed;
  for (const auto& conflict : conflicts) {
    const std::string manager = PrintManager(*conflict.entry);
    listed += (listed.empty() ? "" : "\n") + std::string("conflicts with ") + manager + ":";
    for (const auto& path : conflict.paths) {
      causes.push_back({{"type", "FieldManagerConflict"},
                        {"message", "conflict with " + manager},
                        {"field", path}});
      listed += "\n- " + path;
    }
  }
  std::string message;
  if (causes.size() == 1) {
    message = "Apply failed with 1 conflict: " + causes[0]["message"].get<std::string>() + ": " +
              causes[0]["field"].get<std::string>();
  } else {
    message = "Apply failed with " + std::to_string(causes.size()) + " conflicts: " + listed;
  }
  return ApiError(409, "Conflict", message, Json{{"causes", causes}});
}

}  // namespace

Json ServerSideApply(const ResourceType& resource, const Json& live, const Json& config,
                     const ApplyRequest& request) {
  const FieldShapes shapes = FieldShapes::Of(resource);
  const Json scoped = ScopeConfig(resource, config, request.subresource);
  FieldSet applied = FieldsOf(scoped, shapes);
  KeepTracked(applied, resource, request.subresource);

  ManagedEntries entries = DecodeManagedFields(MetadataOf(live)).value_or(ManagedEntries{});
  const size_t count_before = entries.size();
  const size_t mine =
      EntryIndex(entries, request.manager, "Apply", resource.ApiVersion(), request.subresource);
  const FieldSet last = entries[mine].fields;
  entries[mine].fields = applied;
  FieldSet owned;
  for (const auto& entry : entries) owned.Add(entry.fields);

  Json base = live;
  if (base.contains("metadata")) base["metadata"].erase("managedFields");
  Json merged = Merge(&base, scoped, shapes);
  RemoveFields(merged, Unowned(last, owned), owned, shapes);

  FieldChanges changes = CompareFields(base, merged, shapes);
  for (FieldSet* set : {&changes.added, &changes.modified, &changes.removed}) {
    KeepTracked(*set, resource, request.subresource);
  }
  FieldSet changed = changes.added;
  changed.Add(changes.modified);
  std::vector<ManagerConflict> conflicts;
  std::vector<FieldSet> taken(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i == mine) continue;
    taken[i] = entries[i].fields.Common(changed);
    if (!taken[i].Empty()) conflicts.push_back({&entries[i], taken[i].Paths()});
  }
  if (!conflicts.empty() && !request.force) throw ConflictError(std::move(conflicts));
  for (size_t i = 0; i < entries.size(); ++i) {
    entries[i].fields.Remove(taken[i]);
    entries[i].fields.Remove(changes.removed);
  }
  // A repeated apply that changes nothing keeps the time of the last one.
  const bool existed = mine < count_before;
  if (!existed || merged != base) entries[mine].time = NowString();
  EncodeManagedFields(std::move(entries), merged["metadata"]);
  return merged;
}

}  // namespace gpupool::sandbox
