#include "json_fields.h"

#include "gpupool/json/quantity.h"

namespace gpupool::cli {

using Json = nlohmann::json;

std::string TextAt(const Json& object, const char* key, const std::string& absent) {
  const auto found = object.find(key);
  if (found == object.end() || found->is_null()) return absent;
  return found->is_string() ? found->get<std::string>() : found->dump();
}

const Json& ObjectAt(const Json& object, const char* key) {
  static const Json kEmpty = Json::object();
  const auto found = object.find(key);
  return found != object.end() && found->is_object() ? *found : kEmpty;
}

std::optional<int64_t> MilliAt(const Json& object, const char* key) {
  const std::string text = TextAt(object, key);
  if (text.empty()) return std::nullopt;
  std::string error;
  return json::ParseMilli(text, &error);
}

}  // namespace gpupool::cli
