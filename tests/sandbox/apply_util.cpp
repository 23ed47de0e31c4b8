#include "apply_util.h"

namespace gpupool::sandbox::testing {

Reply ApplyYaml(httplib::Client& client, const std::string& path, const std::string& yaml,
                const std::string& query) {
  return SendRaw(client, "PATCH", path + (query.empty() ? "" : "?" + query), yaml,
                 "application/apply-patch+yaml");
}

Json ManagedEntry(const Json& object, const std::string& manager, const std::string& operation) {
  if (!object.is_object() || !object.contains("metadata")) return nullptr;
  for (const auto& entry : object["metadata"].value("managedFields", Json::array())) {
    if (entry.value("manager", "") == manager && entry.value("operation", "") == operation) {
      return entry;
    }
  }
  return nullptr;
}

std::string ConfigMapYaml(const std::string& name, const std::string& data) {
  return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata: " + data + "\n";
}

}  // namespace gpupool::sandbox::testing
