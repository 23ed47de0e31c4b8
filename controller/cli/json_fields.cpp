#include "json_fields.h"

#include "gpupool/api/quantity.h"

namespace gpupool::cli {

using nlohmann::json;

std::string TextAt(const json& object, const char* key, const std::string& absent) {
  const auto found = object.find(key);
  if (found == object.end() || found->is_null()) return absent;
  return found->is_string() ? found->get<std::string>() : found->dump();
}

const json& ObjectAt(const json& object, const char* key) {
  static const json kEmpty = json::object();
  const auto found = object.find(key);
  return found != object.end() && found->is_object() ? *found : kEmpty;
}

std::optional<int64_t> MilliAt(const json& object, const char* key) {
  const std::string text = TextAt(object, key);
  if (text.empty()) return std::nullopt;
  std::string error;
  return api::ParseMilli(text, &error);
}

std::string NameOf(const json& object) { return TextAt(ObjectAt(object, "metadata"), "name"); }

}  // namespace gpupool::cli
