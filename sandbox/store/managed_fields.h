// metadata.managedFields: which manager owns which fields of an object, as a
// real server records them. Every write updates them: an apply replaces the
// applier's entry (apply.h); any other write gives its manager (the
// fieldManager query parameter, else the User-Agent up to its first "/") an
// `Update` entry owning the fields it changed, taking them from the others.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sandbox/rules/resource_type.h"
#include "sandbox/store/field_set.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

struct ManagedEntry {
  std::string manager;
  std::string operation;  // "Apply" or "Update"
  std::string api_version;
  std::string subresource;
  std::string time;  // RFC 3339; "" when unset
  FieldSet fields;
};

using ManagedEntries = std::vector<ManagedEntry>;

// The entries of `metadata.managedFields`: none when absent, nullopt when
// they are malformed (an unknown operation or fieldsType, bad FieldsV1, ...).
std::optional<ManagedEntries> DecodeManagedFields(const Json& metadata);
// Writes the entries that own fields into `metadata`, in the real server's
// order (Apply before Update, then by time and manager); none: no field.
void EncodeManagedFields(ManagedEntries entries, Json& metadata);

// The index of the entry of `manager` for `operation` through `subresource`,
// added when missing.
size_t EntryIndex(ManagedEntries& entries, const std::string& manager, const std::string& operation,
                  const std::string& api_version, const std::string& subresource);

// Drops what no manager owns: the fields the server sets (apiVersion, kind,
// metadata.name, namespace, uid, resourceVersion, generation, ...), and the
// fields a write cannot change: status through the main resource of a kind
// with a status subresource, everything but status through /status.
void KeepTracked(FieldSet& fields, const ResourceType& resource, const std::string& subresource);

// Records a create (`old` null) or update that is not an apply in the
// managedFields of `object`. Valid managedFields sent with a write to the
// main resource replace the old ones first ([{}] clears them); malformed ones
// are ignored.
void TrackUpdate(const ResourceType& resource, const Json* old, Json& object,
                 const std::string& manager, const std::string& subresource);

// The metadata of `object`, or an empty object.
const Json& MetadataOf(const Json& object);

}  // namespace gpupool::sandbox
