#include "sandbox/nodes/kubelet.h"

#include <algorithm>

#include "gpupool/json/quantity.h"
#include "sandbox/nodes/device_plugin.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

bool MatchesRequirement(const Json& labels, const Json& requirement) {
  const std::string key = requirement.value("key", "");
  const std::string op = requirement.value("operator", "");
  const Json values = requirement.value("values", Json::array());
  const bool has = labels.contains(key);
  const bool listed = has && std::find(values.begin(), values.end(), labels[key]) != values.end();
  if (op == "In") return listed;
  if (op == "NotIn") return !listed;
  if (op == "Exists") return has;
  if (op == "DoesNotExist") return !has;
  if ((op == "Gt" || op == "Lt") && has && !values.empty()) {
    const long long have = std::atoll(labels[key].get<std::string>().c_str());
    const long long want = std::atoll(values[0].get<std::string>().c_str());
    return op == "Gt" ? have > want : have < want;
  }
  return false;
}

bool MatchesAffinity(const Json& labels, const Json& spec) {
  const Json terms = spec.value("affinity", Json::object())
                         .value("nodeAffinity", Json::object())
                         .value("requiredDuringSchedulingIgnoredDuringExecution", Json::object())
                         .value("nodeSelectorTerms", Json::array());
  if (terms.empty()) return true;
  for (const auto& term : terms) {  // terms are ORed, requirements ANDed
    bool all = true;
    for (const auto& requirement : term.value("matchExpressions", Json::array())) {
      all = all && MatchesRequirement(labels, requirement);
    }
    if (all) return true;
  }
  return false;
}

}  // namespace

bool MatchesNodeSelection(const Json& labels, const Json& spec) {
  const auto selector = spec.find("nodeSelector");
  if (selector != spec.end() && selector->is_object()) {
    for (const auto& [key, value] : selector->items()) {
      if (!labels.contains(key) || labels[key] != value) return false;
    }
  }
  return MatchesAffinity(labels, spec);
}

std::chrono::steady_clock::duration ScaledSeconds(double simulated_seconds, double time_scale) {
  constexpr double kLongest = 365.0 * 24 * 3600;
  double real = simulated_seconds / time_scale;
  if (!(real >= 0)) real = 0;  // NaN and negatives
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(std::min(real, kLongest)));
}

int64_t Milli(const Json& value) {
  std::string error;
  if (value.is_number()) return static_cast<int64_t>(value.get<double>() * 1000);
  if (!value.is_string()) return 0;
  return json::ParseMilli(value.get<std::string>(), &error).value_or(0);
}

namespace {

Resources ContainerRequests(const Json& container) {
  const Json resources = container.value("resources", Json::object());
  const Json requests = resources.value("requests", Json::object());
  const Json limits = resources.value("limits", Json::object());
  auto pick = [&](const char* name) {
    if (requests.contains(name)) return Milli(requests[name]);
    return limits.contains(name) ? Milli(limits[name]) : 0;
  };
  return {pick("cpu"), pick("memory") / 1000, pick("nvidia.com/gpu"), 0};
}

}  // namespace

// As the kubelet counts them: the containers' sum, or the largest init
// container's request where that is more (init containers run one at a time,
// before the others).
Resources PodRequests(const Json& spec) {
  Resources total, init;
  total.pods = 1;
  for (const auto& container : spec.value("containers", Json::array())) {
    const Resources one = ContainerRequests(container);
    total.cpu_milli += one.cpu_milli;
    total.memory_bytes += one.memory_bytes;
    total.gpu_milli += one.gpu_milli;
  }
  for (const auto& container : spec.value("initContainers", Json::array())) {
    const Resources one = ContainerRequests(container);
    init.cpu_milli = std::max(init.cpu_milli, one.cpu_milli);
    init.memory_bytes = std::max(init.memory_bytes, one.memory_bytes);
    init.gpu_milli = std::max(init.gpu_milli, one.gpu_milli);
  }
  total.cpu_milli = std::max(total.cpu_milli, init.cpu_milli);
  total.memory_bytes = std::max(total.memory_bytes, init.memory_bytes);
  total.gpu_milli = std::max(total.gpu_milli, init.gpu_milli);
  return total;
}

void SetCondition(Json& pod, const std::string& type, const std::string& status,
                  const std::string& reason, const std::string& message) {
  auto& conditions = pod["status"]["conditions"];
  if (!conditions.is_array()) conditions = Json::array();
  EraseIf(conditions, [&](const Json& c) { return c.value("type", "") == type; });
  Json condition = {{"type", type},
                    {"status", status},
                    {"lastProbeTime", nullptr},
                    {"lastTransitionTime", NowString()}};
  if (!reason.empty()) condition["reason"] = reason;
  if (!message.empty()) condition["message"] = message;
  conditions.push_back(condition);
}

namespace {

// A running container's status; `state`, when given, replaces running.
Json ContainerStatus(const Json& container, const std::string& key, Json state = nullptr) {
  const std::string name = container.value("name", ""), image = container.value("image", "");
  const bool running = state.is_null();
  return {{"name", name},
          {"ready", running},
          {"restartCount", 0},
          {"image", image},
          {"imageID", "sandbox://" + image},
          {"containerID", "sandbox://" + key + "/" + name},
          {"started", running},
          {"state", running ? Json{{"running", {{"startedAt", NowString()}}}} : state}};
}

bool RunsReportOfReserveDevice(const Json& container) {
  const Json command = container.value("command", Json::array());
  const auto has = [&](const char* word) {
    return std::find(command.begin(), command.end(), word) != command.end();
  };
  return has("reserve-device") && has("report");
}

// An init container ran to completion before the containers started; a
// native sidecar (restartPolicy Always) runs on beside them. The one program
// the simulated kubelets know is gpupool's `reserve-device report`: its
// termination message is the device the device plugin gave the pod.
Json InitContainerStatus(const Json& container, const Json& pod, const std::string& key) {
  if (container.value("restartPolicy", "") == "Always") return ContainerStatus(container, key);
  Json terminated = {{"exitCode", 0},
                     {"reason", "Completed"},
                     {"startedAt", NowString()},
                     {"finishedAt", NowString()}};
  const Json annotations = pod["metadata"].value("annotations", Json::object());
  const std::string devices = annotations.value(kVisibleDevicesAnnotation, "");
  if (RunsReportOfReserveDevice(container) && !devices.empty()) terminated["message"] = devices;
  return ContainerStatus(container, key, {{"terminated", terminated}});
}

}  // namespace

// The status a kubelet writes once the containers run.
void MarkRunning(Json& pod, const std::string& key) {
  auto& status = pod["status"];
  status["phase"] = "Running";
  status["startTime"] = NowString();
  status["podIP"] = "10.244.0." + std::to_string(1 + std::hash<std::string>{}(key) % 250);
  Json init_statuses = Json::array();
  for (const auto& container : pod["spec"].value("initContainers", Json::array()))
    init_statuses.push_back(InitContainerStatus(container, pod, key));
  if (!init_statuses.empty()) status["initContainerStatuses"] = init_statuses;
  Json statuses = Json::array();
  for (const auto& container : pod["spec"].value("containers", Json::array()))
    statuses.push_back(ContainerStatus(container, key));
  status["containerStatuses"] = statuses;
  for (const char* type : {"Initialized", "ContainersReady", "Ready"}) {
    SetCondition(pod, type, "True", "", "");
  }
}

void MarkFinished(Json& pod, int exit_code) {
  auto& status = pod["status"];
  status["phase"] = exit_code == 0 ? "Succeeded" : "Failed";
  for (auto& container : status["containerStatuses"]) {
    container["ready"] = false;
    container["state"] = {{"terminated",
                           {{"exitCode", exit_code},
                            {"reason", exit_code == 0 ? "Completed" : "Error"},
                            {"finishedAt", NowString()}}}};
  }
  SetCondition(pod, "Ready", "False", "PodCompleted", "");
}

void MarkRejected(Json& pod, const std::string& reason, const std::string& message) {
  auto& status = pod["status"];
  status["phase"] = "Failed";
  status["reason"] = reason;
  status["message"] = message;
  status["startTime"] = NowString();
}

std::string PredicateRejection(const std::string& predicate) {
  return "Pod was rejected: Predicate " + predicate + " failed";
}

}  // namespace gpupool::sandbox
