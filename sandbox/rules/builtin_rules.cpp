#include "sandbox/rules/builtin_rules.h"

#include <regex>

#include "sandbox/api_error.h"

namespace gpupool::sandbox {
namespace {

const Json* Find(const Json& object, const std::string& path) {
  const Json* node = &object;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t dot = std::min(path.find('.', start), path.size());
    const std::string part = path.substr(start, dot - start);
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
    start = dot + 1;
  }
  return node;
}

}  // namespace

bool IsMicroTime(const std::string& text) {
  static const std::regex kMicroTime(
      R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2}))");
  return std::regex_match(text, kMicroTime);
}

void CheckMicroTimes(const std::string& kind, const Json& object,
                     std::initializer_list<const char*> paths) {
  for (const char* path : paths) {
    const Json* value = Find(object, path);
    if (!value || value->is_null()) continue;
    const std::string text = value->is_string() ? value->get<std::string>() : value->dump();
    if (value->is_string() && IsMicroTime(text)) continue;
    throw BadRequest(kind + " in version \"v1\" cannot be handled as a " + kind + ": " + path +
                     ": parsing time \"" + text +
                     "\" as \"2006-01-02T15:04:05.000000Z07:00\": a MicroTime needs RFC 3339 "
                     "with exactly six fractional digits");
  }
}

json::FieldErrors ValidateConfigMapSize(const Json& config_map) {
  constexpr size_t kMaxBytes = 1024 * 1024;
  size_t total = 0;
  for (const char* field : {"data", "binaryData"}) {
    if (!config_map.contains(field) || !config_map[field].is_object()) continue;
    for (const auto& [key, value] : config_map[field].items()) {
      if (value.is_string()) total += value.get_ref<const std::string&>().size();
    }
  }
  if (total <= kMaxBytes) return {};
  // The real server reports this on the whole object (an empty path).
  return {{"", "Too long: must have at most " + std::to_string(kMaxBytes) + " bytes"}};
}

json::FieldErrors ValidateLeaseSpec(const Json& lease) {
  json::FieldErrors errors;
  const Json spec = lease.value("spec", Json::object());
  if (!spec.is_object()) return errors;
  const auto check = [&](const char* field, int64_t minimum, const char* rule) {
    if (!spec.contains(field) || spec[field].is_null()) return;
    if (!spec[field].is_number_integer() || spec[field].get<int64_t>() < minimum) {
      errors.push_back(
          {std::string("spec.") + field, "Invalid value: " + spec[field].dump() + ": " + rule});
    }
  };
  check("leaseDurationSeconds", 1, "must be greater than 0");
  check("leaseTransitions", 0, "must be greater than or equal to 0");
  return errors;
}

void DefaultNamespace(Json& name_space) {
  name_space["spec"] = {{"finalizers", Json::array({"kubernetes"})}};
  name_space["status"] = {{"phase", "Active"}};
  auto& labels = name_space["metadata"]["labels"];
  labels["kubernetes.io/metadata.name"] = name_space["metadata"].value("name", "");
}

void DefaultService(Json& service, std::atomic<uint32_t>& allocated_ips) {
  auto& spec = service["spec"];
  if (!spec.is_object()) spec = Json::object();
  if (!spec.contains("type")) spec["type"] = "ClusterIP";
  // An ExternalName service is a DNS alias: it gets no cluster IP.
  if (spec.value("type", "") == "ExternalName") return;
  if (!spec.contains("clusterIP")) {
    const uint32_t n = ++allocated_ips;
    spec["clusterIP"] = "10.96." + std::to_string((n >> 8) & 0xFF) + "." + std::to_string(n & 0xFF);
  }
  spec["clusterIPs"] = Json::array({spec["clusterIP"]});
  if (spec.contains("ports") && spec["ports"].is_array()) {
    for (auto& port : spec["ports"]) {
      if (port.is_object() && !port.contains("protocol")) port["protocol"] = "TCP";
      if (port.is_object() && !port.contains("targetPort") && port.contains("port")) {
        port["targetPort"] = port["port"];
      }
    }
  }
}

void DefaultPreemptionPolicy(Json& priority_class) {
  if (!priority_class.contains("preemptionPolicy"))
    priority_class["preemptionPolicy"] = "PreemptLowerPriority";
}

}  // namespace gpupool::sandbox
