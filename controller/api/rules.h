// Checks shared by the kinds' decoders: the same rules the CRD schemas state,
// so that our validator and the API server reject the same objects.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "gpupool/api/json_reader.h"

namespace gpupool::api {

// A string field that must be one of `allowed`.
std::optional<std::string> ReadEnum(JsonReader& reader, std::string_view key,
                                    std::initializer_list<std::string_view> allowed,
                                    Presence presence = Presence::kOptional);

// An integer field that must be >= `minimum`.
std::optional<int64_t> ReadMinimum(JsonReader& reader, std::string_view key, int64_t minimum,
                                   Presence presence = Presence::kOptional);

// A quantity field that must be >= 0.
std::optional<Quantity> ReadNonNegativeQuantity(JsonReader& reader, std::string_view key,
                                                Presence presence = Presence::kOptional);

// RFC 1123 label: lower-case alphanumerics and '-', at most 63 characters.
bool IsDnsLabel(std::string_view text);
// RFC 1123 subdomain: dot-separated labels, at most 253 characters.
bool IsDnsSubdomain(std::string_view text);

// metadata.name must be a DNS subdomain.
void CheckObjectName(JsonReader& root, const std::string& name);

}  // namespace gpupool::api
