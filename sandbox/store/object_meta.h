// Helpers over object metadata: keys, names, uids, timestamps, and the
// checks and fill of metadata on writes.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "gpupool/json/field_error.h"
#include "sandbox/rules/resource_type.h"
#include "sandbox/store/store.h"

namespace gpupool::sandbox {

std::string ObjectKey(const std::string& ns, const std::string& name);
std::string StorageKey(const ResourceType& resource);

std::string NewUid();
std::string RandomSuffix(size_t length);
// RFC 3339 in UTC with second precision, as metadata timestamps are written.
std::string FormatTime(std::chrono::system_clock::time_point time);
// Inverse of FormatTime; returns false on anything else.
bool ParseTime(const std::string& text, std::chrono::system_clock::time_point* time);
std::string NowString();
// RFC 3339 with six fractional digits, as metav1.MicroTime fields are written.
std::string FormatMicroTime(std::chrono::system_clock::time_point time);

// The syntax a kind's names follow: most kinds' are DNS-1123 subdomains,
// namespaces' DNS-1123 labels, services' DNS-1035 labels.
enum class NameSyntax { kSubdomain, kLabel, kDns1035Label };
json::FieldErrors ValidateObjectName(const std::string& name, const std::string& path,
                                     NameSyntax syntax = NameSyntax::kSubdomain);
// Errors of a DNS-1123 label field (a pod's hostname or subdomain), as the
// server words them.
json::FieldErrors ValidateDnsLabel(const std::string& value, const std::string& path);
// Errors in labels / annotations keys and values.
json::FieldErrors ValidateMetadataMaps(const Json& metadata);
// Errors in ownerReferences: apiVersion, kind, name and uid are required and
// at most one reference may be the controller.
json::FieldErrors ValidateOwnerReferences(const Json& metadata);
// The metadata of an object being created, as the server makes it: a name
// from generateName when none is given; the name (of `syntax`), labels,
// annotations and owner references checked (Invalid naming `kind`); a new
// uid and creationTimestamp; and the fields a client may not set removed.
void FillCreateMetadata(Json& metadata, const std::string& kind, NameSyntax syntax);
// Errors when an update adds finalizers to an object that is being deleted.
json::FieldErrors ValidateFinalizersUpdate(const Json& old_metadata, const Json& metadata);

// The metadata.name of an object that has metadata ("" when it has no name).
std::string NameInMetadata(const Json& object);
// object[key] when `object` is an object that has `key`, else `fallback`.
const Json& MemberOr(const Json& object, const char* key, const Json& fallback);
// An object's annotation as text; "" when absent or not a string.
std::string Annotation(const Json& object, const char* key);

// Removes the items of a JSON array that `drop` accepts (no-op for non-arrays).
template <typename Drop>
void EraseIf(Json& array, Drop drop) {
  if (!array.is_array()) return;
  Json kept = Json::array();
  for (auto& item : array) {
    if (!drop(item)) kept.push_back(std::move(item));
  }
  array = std::move(kept);
}

}  // namespace gpupool::sandbox
