#include "sandbox/rules/secret_rules.h"

#include "sandbox/api_error.h"
#include "sandbox/store/encoding.h"

namespace gpupool::sandbox {
namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxSecretBytes = 1024 * 1024;

// The keys each well-known type requires.
std::vector<const char*> RequiredKeys(const std::string& type) {
  if (type == "kubernetes.io/tls") return {"tls.crt", "tls.key"};
  if (type == "kubernetes.io/basic-auth") return {};
  if (type == "kubernetes.io/dockerconfigjson") return {".dockerconfigjson"};
  return {};
}

}  // namespace

void PrepareSecret(Json& secret) {
  if (!secret.contains("data") || secret["data"].is_null()) secret["data"] = Json::object();
  for (auto& [key, value] : secret["data"].items()) {
    if (!value.is_string() || !Base64Decode(value.get<std::string>()))
      throw BadRequest(
          "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 "
          "data in data[" +
          key + "]");
  }
  if (secret.contains("stringData") && secret["stringData"].is_object()) {
    for (const auto& [key, value] : secret["stringData"].items())
      if (value.is_string()) secret["data"][key] = Base64Encode(value.get<std::string>());
  }
  secret.erase("stringData");
  if (secret["data"].empty()) secret.erase("data");
  if (secret.value("type", "").empty()) secret["type"] = "Opaque";
}

json::FieldErrors ValidateSecret(const Json& secret, const Json* old) {
  json::FieldErrors errors;
  const Json data = secret.value("data", Json::object());
  const std::string type = secret.value("type", "");
  for (const char* key : RequiredKeys(type))
    if (!data.contains(key)) errors.push_back({std::string("data[") + key + "]", "Required value"});
  std::size_t total = 0;
  for (const auto& [key, value] : data.items())
    total += Base64Decode(value.get<std::string>()).value_or("").size();
  if (total > kMaxSecretBytes)
    errors.push_back(
        {"data", "Too long: may not be more than " + std::to_string(kMaxSecretBytes) + " bytes"});
  if (old && old->value("type", "") != type)
    errors.push_back({"type", "Invalid value: \"" + type + "\": field is immutable"});
  return errors;
}

}  // namespace gpupool::sandbox
