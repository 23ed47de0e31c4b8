#include "sandbox/store/managed_fields.h"

#include <algorithm>
#include <tuple>

#include "sandbox/store/field_shapes.h"
#include "sandbox/store/field_walk.h"
#include "sandbox/store/object_meta.h"

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

// The stored managedFields when the write starts from them as they are: it
// sends none, the same ones (then moved out of `metadata`), or writes a
// subresource. Nullopt otherwise (a create, or other entries sent), and when
// none are stored.
std::optional<Json> TakeStoredEntries(const Json* old, Json& metadata,
                                      const std::string& subresource) {
  if (!old) return std::nullopt;
  const Json& stored_metadata = MetadataOf(*old);
  const auto stored = stored_metadata.find("managedFields");
  if (stored == stored_metadata.end() || !stored->is_array()) return std::nullopt;
  const auto sent = metadata.find("managedFields");
  if (sent == metadata.end()) return *stored;
  if (*sent == *stored) return std::move(*sent);
  if (subresource.empty()) return std::nullopt;
  return *stored;
}

// Whether FieldsV1 `fields` and the set `set` have a member in common: whether
// removing `set` from them would change them. `fields` is the object itself at
// the top, which is never a member.
bool SharesMember(const Json& fields, const FieldSet& set, bool top = true) {
  if (!fields.is_object()) return false;
  if (!top && set.member() && (fields.empty() || fields.contains("."))) return true;
  for (const auto& [step, child] : set.children()) {
    const auto found = fields.find(step);
    if (found != fields.end() && SharesMember(*found, child, false)) return true;
  }
  return false;
}

// A string member, "" when absent or of another type.
const std::string& StringMember(const Json& object, const char* name) {
  static const std::string kNone;
  const auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get_ref<const std::string&>() : kNone;
}

// Encoded entries, and `entries` that own fields, in the real server's order
// (Apply before Update, then by time, manager, apiVersion and subresource) into
// `metadata`; none: removed.
void StoreSorted(std::vector<Json> encoded, const ManagedEntries& entries, Json& metadata) {
  for (const auto& entry : entries) {
    if (!entry.fields.Empty()) encoded.push_back(EncodeEntry(entry));
  }
  if (encoded.empty()) {
    metadata.erase("managedFields");
    return;
  }
  using Order = std::tuple<std::string, std::string, std::string, std::string, std::string>;
  std::vector<std::pair<Order, size_t>> order;
  for (size_t i = 0; i < encoded.size(); ++i) {
    const Json& entry = encoded[i];
    order.push_back({{StringMember(entry, "operation"), StringMember(entry, "time"),
                      StringMember(entry, "manager"), StringMember(entry, "apiVersion"),
                      StringMember(entry, "subresource")},
                     i});
  }
  std::sort(order.begin(), order.end());
  Json sorted = Json::array();
  for (const auto& [key, index] : order) sorted.push_back(std::move(encoded[index]));
  metadata["managedFields"] = std::move(sorted);
}

// The decoded entries a write changes, and the others as stored: a write most
// often changes the fields of one manager, and the others need not be decoded
// and encoded again.
struct EntriesOfWrite {
  ManagedEntries changed;
  std::vector<Json> untouched;
  bool writer_timed = false;  // The writer's entry is among `untouched`, its time set.
};

// Whether FieldsV1 `fields` hold every member of `set`.
bool HoldsAll(const Json& fields, const FieldSet& set, bool top = true) {
  if (!fields.is_object()) return false;
  if (!top && set.member() && !fields.empty() && !fields.contains(".")) return false;
  for (const auto& [step, child] : set.children()) {
    const auto found = fields.find(step);
    if (found == fields.end() || !HoldsAll(*found, child, false)) return false;
  }
  return true;
}

// Splits the stored entries (moved in) into those the write changes, decoded,
// and the others as they are. The writer's own entry, when it already owns
// everything the write changed, only gets the write's time.
EntriesOfWrite SplitStoredEntries(Json stored, const FieldSet& changed, const FieldSet& removed,
                                  const std::string& manager, const std::string& api_version,
                                  const std::string& subresource) {
  static const Json kNoFields = Json::object();
  EntriesOfWrite split;
  for (Json& item : stored) {
    const bool mine = StringMember(item, "manager") == manager &&
                      StringMember(item, "operation") == "Update" &&
                      StringMember(item, "apiVersion") == api_version &&
                      StringMember(item, "subresource") == subresource;
    const auto found = item.find("fieldsV1");
    const Json& fields = found != item.end() ? *found : kNoFields;
    const bool loses = SharesMember(fields, removed) || (!mine && SharesMember(fields, changed));
    if (mine && !changed.Empty() && !loses && HoldsAll(fields, changed)) {
      item["time"] = NowString();
      split.writer_timed = true;
    } else if (loses || (mine && !changed.Empty())) {
      if (auto entry = DecodeEntry(item)) {
        split.changed.push_back(std::move(*entry));
        continue;
      }
    }
    split.untouched.push_back(std::move(item));
  }
  return split;
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
  StoreSorted({}, entries, metadata);
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
    if (FieldSet* found = fields.Find("f:status")) status.Child("f:status") = std::move(*found);
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
  // Compared while the object still carries managedFields: they are most often
  // the old ones unchanged, a cheap equal subtree, where a missing member would
  // be walked whole. KeepTracked drops them from the changes either way, and
  // keeps a status write's changes to the status alone: only that is compared.
  static const Json kNothing = Json::object();
  const Json& before = old ? *old : kNothing;
  const FieldShapes shapes = FieldShapes::Of(resource);
  FieldChanges changes = subresource == "status" ? CompareMember(before, object, shapes, "status")
                                                 : CompareFields(before, object, shapes);
  for (FieldSet* set : {&changes.added, &changes.modified, &changes.removed}) {
    KeepTracked(*set, resource, subresource);
  }
  FieldSet changed = std::move(changes.added);
  changed.Add(std::move(changes.modified));
  EntriesOfWrite entries;
  if (auto stored = TakeStoredEntries(old, metadata, subresource)) {
    entries = SplitStoredEntries(std::move(*stored), changed, changes.removed, manager,
                                 resource.ApiVersion(), subresource);
  } else {
    entries.changed = BaseEntries(old, metadata, subresource);
  }
  metadata.erase("managedFields");
  for (auto& entry : entries.changed) {
    entry.fields.Remove(changed);
    entry.fields.Remove(changes.removed);
  }
  if (!changed.Empty() && !entries.writer_timed) {
    auto& mine = entries.changed[EntryIndex(entries.changed, manager, "Update",
                                            resource.ApiVersion(), subresource)];
    mine.fields.Add(std::move(changed));
    mine.time = NowString();
  }
  StoreSorted(std::move(entries.untouched), entries.changed, metadata);
}

}  // namespace gpupool::sandbox
