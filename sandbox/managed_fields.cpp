#include "sandbox/managed_fields.h"

#include <algorithm>
#include <tuple>

#include "sandbox/field_shapes.h"
#include "sandbox/field_walk.h"
#include "sandbox/object_meta.h"

namespace gpupool::sandbox {
namespace {

// A string member, "" when absent; false when present with another type.
bool OptionalString(const Json& object, const char* name, std::string* value) {
  const auto found = object.find(name);
  if (found == object.end() || found->is_null()) return true;
  if (!found->is_string()) return false;
  *value = found->get<std::string>();
  return true;
}

std::optional<ManagedEntry> DecodeEntry(const Json& encoded) {
  if (!encoded.is_object()) return std::nullopt;
  ManagedEntry entry;
  std::string fields_type;
  for (const auto& [name, target] :
       {std::pair<const char*, std::string*>{"manager", &entry.manager},
        {"operation", &entry.operation},
        {"apiVersion", &entry.api_version},
        {"subresource", &entry.subresource},
        {"time", &entry.time},
        {"fieldsType", &fields_type}}) {
    if (!OptionalString(encoded, name, target)) return std::nullopt;
  }
  std::chrono::system_clock::time_point time;
  if ((entry.operation != "Apply" && entry.operation != "Update") || entry.api_version.empty() ||
      fields_type != "FieldsV1" || (!entry.time.empty() && !ParseTime(entry.time, &time))) {
    return std::nullopt;
  }
  const auto fields = FieldSet::FromFieldsV1(encoded.value("fieldsV1", Json::object()));
  if (!fields) return std::nullopt;
  entry.fields = *fields;
  return entry;
}

Json EncodeEntry(const ManagedEntry& entry) {
  Json encoded = {{"manager", entry.manager},
                  {"operation", entry.operation},
                  {"apiVersion", entry.api_version},
                  {"fieldsType", "FieldsV1"},
                  {"fieldsV1", entry.fields.ToFieldsV1()}};
  if (!entry.time.empty()) encoded["time"] = entry.time;
  if (!entry.subresource.empty()) encoded["subresource"] = entry.subresource;
  return encoded;
}

bool SameManager(const ManagedEntry& entry, const std::string& manager,
                 const std::string& operation, const std::string& api_version,
                 const std::string& subresource) {
  // Appliers are one manager whatever version they apply with.
  return entry.manager == manager && entry.operation == operation &&
         entry.subresource == subresource &&
         (operation == "Apply" || entry.api_version == api_version);
}

// The entries a write starts from: those sent with it when they are valid,
// else the stored ones.
ManagedEntries BaseEntries(const Json* old, const Json& metadata, const std::string& subresource) {
  const auto sent = metadata.find("managedFields");
  if (subresource.empty() && sent != metadata.end()) {
    if (*sent == Json::array({Json::object()})) return {};
    auto decoded = DecodeManagedFields(metadata);
    if (decoded && !decoded->empty()) return *decoded;
  }
  if (!old) return {};
  return DecodeManagedFields(MetadataOf(*old)).value_or(ManagedEntries{});
}

}  // namespace

const Json& MetadataOf(const Json& object) {
  static const Json kEmpty = Json::object();
  if (!object.is_object()) return kEmpty;
  const auto found = object.find("metadata");
  return found != object.end() && found->is_object() ? *found : kEmpty;
}

std::optional<ManagedEntries> DecodeManagedFields(const Json& metadata) {
  const auto encoded = metadata.find("managedFields");
  if (encoded == metadata.end() || encoded->is_null()) return ManagedEntries{};
  if (!encoded->is_array()) return std::nullopt;
  ManagedEntries entries;
  for (const auto& item : *encoded) {
    auto entry = DecodeEntry(item);
    if (!entry) return std::nullopt;
    const size_t index = EntryIndex(entries, entry->manager, entry->operation, entry->api_version,
                                    entry->subresource);
    entries[index] = std::move(*entry);
  }
  return entries;
}

void EncodeManagedFields(ManagedEntries entries, Json& metadata) {
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [](const ManagedEntry& entry) { return entry.fields.Empty(); }),
                entries.end());
  std::sort(entries.begin(), entries.end(), [](const ManagedEntry& a, const ManagedEntry& b) {
    return std::tie(a.operation, a.time, a.manager, a.api_version, a.subresource) <
           std::tie(b.operation, b.time, b.manager, b.api_version, b.subresource);
  });
  if (entries.empty()) {
    metadata.erase("managedFields");
    return;
  }
  Json encoded = Json::array();
  for (const auto& entry : entries) encoded.push_back(EncodeEntry(entry));
  metadata["managedFields"] = std::move(encoded);
}

size_t EntryIndex(ManagedEntries& entries, const std::string& manager, const std::string& operation,
                  const std::string& api_version, const std::string& subresource) {
  for (size_t i = 0; i < entries.size(); ++i) {
    if (SameManager(entries[i], manager, operation, api_version, subresource)) return i;
  }
  entries.push_back({manager, operation, api_version, subresource, "", FieldSet()});
  return entries.size() - 1;
}

void KeepTracked(FieldSet& fields, const ResourceType& resource, const std::string& subresource) {
  if (subresource == "status") {
    FieldSet status;
    if (const FieldSet* found = fields.Find("f:status")) status.Child("f:status") = *found;
    fields = std::move(status);
    return;
  }
  if (resource.status_subresource) fields.Erase("f:status");
  fields.Erase("f:apiVersion");
  fields.Erase("f:kind");
  if (!fields.Find("f:metadata")) return;
  FieldSet& metadata = fields.Child("f:metadata");
  for (const char* name : {"name", "namespace", "uid", "resourceVersion", "generation",
                           "creationTimestamp", "managedFields", "selfLink"}) {
    metadata.Erase(FieldStep(name));
  }
  if (metadata.Empty()) fields.Erase("f:metadata");
}

void TrackUpdate(const ResourceType& resource, const Json* old, Json& object,
                 const std::string& manager, const std::string& subresource) {
  Json& metadata = object["metadata"];
  ManagedEntries entries = BaseEntries(old, metadata, subresource);
  // Compared while the object still carries managedFields: they are most often
  // the old ones unchanged, a cheap equal subtree, where a missing member would
  // be walked whole. KeepTracked drops them from the changes either way.
  FieldChanges changes =
      CompareFields(old ? *old : Json::object(), object, FieldShapes::Of(resource));
  metadata.erase("managedFields");
  for (FieldSet* set : {&changes.added, &changes.modified, &changes.removed}) {
    KeepTracked(*set, resource, subresource);
  }
  FieldSet changed = changes.added;
  changed.Add(changes.modified);
  for (auto& entry : entries) {
    entry.fields.Remove(changed);
    entry.fields.Remove(changes.removed);
  }
  if (!changed.Empty()) {
    auto& mine =
        entries[EntryIndex(entries, manager, "Update", resource.ApiVersion(), subresource)];
    mine.fields.Add(changed);
    mine.time = NowString();
  }
  EncodeManagedFields(std::move(entries), metadata);
}

}  // namespace gpupool::sandbox
