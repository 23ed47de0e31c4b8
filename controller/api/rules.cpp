#include "rules.h"

namespace gpupool::api {

std::optional<std::string> ReadEnum(json::Reader& reader, std::string_view key,
                                    std::initializer_list<std::string_view> allowed,
                                    json::Presence presence) {
  auto value = reader.String(key, presence);
  if (!value) return std::nullopt;
  for (auto option : allowed) {
    if (*value == option) return value;
  }
  std::string message = "must be one of ";
  for (auto option : allowed) {
    if (option != *allowed.begin()) message += ", ";
    message += option;
  }
  reader.Error(key, message + ", got \"" + *value + "\"");
  return std::nullopt;
}

std::optional<int64_t> ReadMinimum(json::Reader& reader, std::string_view key, int64_t minimum,
                                   json::Presence presence) {
  auto value = reader.Int(key, presence);
  if (value && *value < minimum) {
    reader.Error(key, "must be >= " + std::to_string(minimum));
    return std::nullopt;
  }
  return value;
}

std::optional<json::Quantity> ReadNonNegativeQuantity(json::Reader& reader, std::string_view key,
                                                      json::Presence presence) {
  auto value = reader.QuantityField(key, presence);
  if (value && value->milli < 0) {
    reader.Error(key, "must be >= 0");
    return std::nullopt;
  }
  return value;
}

namespace {

// [a-z0-9]([-a-z0-9]*[a-z0-9])?, any length.
bool IsLabelPattern(std::string_view text) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (text.empty() || !alnum(text.front()) || !alnum(text.back())) return false;
  for (char c : text) {
    if (!alnum(c) && c != '-') return false;
  }
  return true;
}

}  // namespace

bool IsDnsLabel(std::string_view text) { return text.size() <= 63 && IsLabelPattern(text); }

bool IsDns1035Label(std::string_view text) {
  return IsDnsLabel(text) && text.front() >= 'a' && text.front() <= 'z';
}

bool IsDnsSubdomain(std::string_view text) {
  if (text.empty() || text.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    if (!IsLabelPattern(text.substr(start, dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

void CheckObjectName(json::Reader& root, const std::string& name) {
  if (!name.empty() && (!IsDnsSubdomain(name) || name.size() > 63)) {
    root.errors().push_back({"metadata.name",
                             "must be a lower-case RFC 1123 subdomain (a-z, 0-9, '-', '.') of at "
                             "most 63 characters, as gpupool writes it into pod labels, got \"" +
                                 name + "\""});
  }
}

Json ObjectJsonBase(const Json& raw, const char* kind, const ObjectMeta& metadata) {
  Json json = raw.is_object() ? raw : Json::object();
  json["apiVersion"] = kApiVersion;
  json["kind"] = kind;
  WriteObjectMeta(metadata, json["metadata"]);
  return json;
}

}  // namespace gpupool::api
