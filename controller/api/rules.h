// Checks shared by the kinds' decoders: the same rules the CRD schemas state,
// so that our validator and the API server reject the same objects.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "gpupool/api/meta.h"
#include "gpupool/json/reader.h"

namespace gpupool::api {

// A string field that must be one of `allowed`.
std::optional<std::string> ReadEnum(json::Reader& reader, std::string_view key,
                                    std::initializer_list<std::string_view> allowed,
                                    json::Presence presence = json::Presence::kOptional);

// An integer field that must be >= `minimum`.
std::optional<int64_t> ReadMinimum(json::Reader& reader, std::string_view key, int64_t minimum,
                                   json::Presence presence = json::Presence::kOptional);

// A quantity field that must be >= 0.
std::optional<json::Quantity> ReadNonNegativeQuantity(
    json::Reader& reader, std::string_view key,
    json::Presence presence = json::Presence::kOptional);

// RFC 1123 label: lower-case alphanumerics and '-', at most 63 characters.
bool IsDnsLabel(std::string_view text);
// RFC 1035 label: an RFC 1123 label that starts with a letter (service names).
bool IsDns1035Label(std::string_view text);
// RFC 1123 subdomain: dot-separated labels, at most 253 characters.
bool IsDnsSubdomain(std::string_view text);

// metadata.name must be a DNS subdomain of at most 63 characters: our objects'
// names are written into pod labels.
void CheckObjectName(json::Reader& root, const std::string& name);

// Reads one of our kinds: type meta, metadata, then spec and status through the
// kind's own readers. The object keeps `object` as raw for write-back, unless
// told it will not write it back.
template <typename Object, typename ReadSpec, typename ReadStatus>
Object DecodeKind(const Json& object, json::FieldErrors& errors, const char* kind,
                  json::Presence spec_presence, ReadSpec read_spec, ReadStatus read_status,
                  RawJson raw = RawJson::kKeep) {
  Object result;
  if (raw == RawJson::kKeep) result.raw = object;
  json::Reader root(object, "", errors);
  ExpectTypeMeta(root, kApiVersion, kind);
  result.metadata = ReadObjectMeta(root, json::Presence::kRequired);
  CheckObjectName(root, result.metadata.name);
  if (const Json* spec = root.Object("spec", spec_presence)) {
    json::Reader reader(*spec, root, "spec");
    result.spec = read_spec(reader);
  }
  if (const Json* status = root.Object("status")) {
    json::Reader reader(*status, root, "status");
    result.status = read_status(reader);
  }
  return result;
}

// The raw object with our type meta and metadata written over it: where every
// kind's ToJson starts.
Json ObjectJsonBase(const Json& raw, const char* kind, const ObjectMeta& metadata);

}  // namespace gpupool::api
