#include "submit_request.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>

#include "gpupool/json/quantity.h"
#include "numeric_flag.h"

namespace gpupool::cli {
namespace {

using Json = nlohmann::json;

std::pair<std::string, std::string> KeyValue(const std::string& flag, const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0)
    throw UsageError(flag + ": \"" + text + "\" is not KEY=VALUE");
  return {text.substr(0, equals), text.substr(equals + 1)};
}

// KEY=VALUE whose KEY every supported API server takes as a container's
// environment variable: letters, digits, '_', '-' and '.', not first a digit
// (1.29 and 1.30 refuse the pod otherwise; 1.32 is more lenient).
std::pair<std::string, std::string> EnvVar(const std::string& text) {
  auto variable = KeyValue("--env", text);
  const std::string& name = variable.first;
  const bool valid = std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
  if (!valid || std::isdigit(static_cast<unsigned char>(name.front()))) {
    throw UsageError("--env: \"" + name +
                     "\" is not an environment variable name (letters, digits, '_', '-' and "
                     "'.', not starting with a digit)");
  }
  return variable;
}

// CLAIM:/PATH or CLAIM:/PATH:ro
VolumeMount ParseVolume(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0)
    throw UsageError("--volume: \"" + text + "\" is not CLAIM:/PATH[:ro]");
  VolumeMount volume{NameFlag("--volume", text.substr(0, colon)), text.substr(colon + 1)};
  if (volume.path.size() > 3 && volume.path.compare(volume.path.size() - 3, 3, ":ro") == 0) {
    volume.read_only = true;
    volume.path.resize(volume.path.size() - 3);
  }
  if (volume.path.empty() || volume.path.front() != '/')
    throw UsageError("--volume: the mount path of \"" + text + "\" must be absolute");
  return volume;
}

// KEY or KEY:Required or KEY:Preferred
void ParseTopology(const std::string& text, SubmitRequest& request) {
  const auto colon = text.find(':');
  request.topology_key = NonEmptyFlag("--topology", text.substr(0, colon));
  if (colon == std::string::npos) return;
  request.topology_mode = text.substr(colon + 1);
  if (request.topology_mode != "Required" && request.topology_mode != "Preferred")
    throw UsageError("--topology: the mode of \"" + text + "\" is Required or Preferred");
}

std::string WorkloadClass(const std::string& text) {
  for (const char* name : {"Train", "Build", "Inference"}) {
    std::string lower = name;
    for (auto& c : lower) c = static_cast<char>(std::tolower(c));
    if (text == name || text == lower) return name;
  }
  throw UsageError("--class: \"" + text + "\" is not one of Train, Build, Inference");
}

void ParseGpus(const std::string& text, SubmitRequest& request) {
  std::string error;
  const auto milli = json::ParseMilli(text, &error);
  if (!milli) throw UsageError("--gpus: \"" + text + "\" is not a GPU amount (" + error + ")");
  if (*milli <= 0) throw UsageError("--gpus: must be above 0, got " + text);
  if (*milli % 1000 != 0 && *milli > 1000)
    throw UsageError("--gpus: " + text + " is neither whole GPUs nor a fraction below 1");
  if (*milli > 64000) throw UsageError("--gpus: " + text + " is more than one node's 64 GPUs");
  request.gpus = text;
  request.gpu_milli = *milli;
}

using FlagReader = std::function<void(const std::string& value, SubmitRequest&)>;

const std::map<std::string, FlagReader>& ValueFlags() {
  static const std::map<std::string, FlagReader> readers = {
      {"--project", [](const auto& v, auto& r) { r.project = NameFlag("--project", v); }},
      {"--queue", [](const auto& v, auto& r) { r.queue = NonEmptyFlag("--queue", v); }},
      {"--gpus", [](const auto& v, auto& r) { ParseGpus(v, r); }},
      {"--replicas",
       [](const auto& v, auto& r) { r.replicas = IntFlag("--replicas", v, 1, 10000); }},
      {"--image", [](const auto& v, auto& r) { r.image = NonEmptyFlag("--image", v); }},
      {"--class", [](const auto& v, auto& r) { r.workload_class = WorkloadClass(v); }},
      {"--priority",
       [](const auto& v, auto& r) { r.priority = IntFlag("--priority", v, -1000000, 1000000); }},
      {"--env", [](const auto& v, auto& r) { r.env.push_back(EnvVar(v)); }},
      {"--volume", [](const auto& v, auto& r) { r.volumes.push_back(ParseVolume(v)); }},
      {"--topology", [](const auto& v, auto& r) { ParseTopology(v, r); }},
      {"--timeout",
       [](const auto& v, auto& r) { r.wait_timeout_seconds = IntFlag("--timeout", v, 1, 86400); }},
  };
  return readers;
}

bool ReadValueFlag(Args args, std::size_t& i, SubmitRequest& request) {
  const std::string& arg = args[i];
  const auto equals = arg.find('=');
  const auto reader = ValueFlags().find(arg.substr(0, equals));
  if (reader == ValueFlags().end()) return false;
  reader->second(FlagValue(args, i, reader->first), request);
  return true;
}

void CheckComplete(const SubmitRequest& request) {
  if (request.name.empty()) throw UsageError("NAME is missing: the TrainingJob's name");
  if (request.project.empty()) throw UsageError("--project is required: the project to run in");
  if (request.gpu_milli == 0) throw UsageError("--gpus is required: GPUs per replica");
  if (request.image.empty())
    throw UsageError(
        "--image is required: the container image to run, e.g. --image "
        "pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime");
  if (request.gpu_milli % 1000 != 0 && request.replicas > 1)
    throw UsageError("--gpus: a fraction (" + request.gpus + ") is for one replica only");
  if (request.cluster.all_namespaces) throw UsageError("-A: a job is submitted to one project");
}

Json Container(const SubmitRequest& request) {
  Json container = {{"name", request.name}, {"image", request.image}};
  if (!request.command.empty()) container["command"] = request.command;
  for (const auto& [key, value] : request.env)
    container["env"].push_back({{"name", key}, {"value", value}});
  for (std::size_t i = 0; i < request.volumes.size(); ++i) {
    Json mount = {{"name", "volume-" + std::to_string(i)}, {"mountPath", request.volumes[i].path}};
    if (request.volumes[i].read_only) mount["readOnly"] = true;
    container["volumeMounts"].push_back(mount);
  }
  return container;
}

Json PodTemplate(const SubmitRequest& request) {
  Json spec = {{"containers", Json::array({Container(request)})}};
  for (std::size_t i = 0; i < request.volumes.size(); ++i) {
    spec["volumes"].push_back(
        {{"name", "volume-" + std::to_string(i)},
         {"persistentVolumeClaim", {{"claimName", request.volumes[i].claim}}}});
  }
  return {{"spec", spec}};
}

Json GpuAmount(const SubmitRequest& request) {
  if (request.gpu_milli % 1000 == 0) return request.gpu_milli / 1000;
  return json::FormatDecimal(request.gpu_milli);
}

}  // namespace

SubmitRequest ParseSubmitFlags(Args args) {
  SubmitRequest request;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      request.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (ReadClusterFlag(args, i, request.cluster, {"yaml", "json"})) continue;
    if (ReadValueFlag(args, i, request)) continue;
    if (arg == "--wait") {
      request.wait = true;
    } else if (arg == "--dry-run") {
      request.dry_run = true;
    } else if (arg.rfind("-", 0) == 0 || !request.name.empty()) {
      throw UsageError("unknown argument \"" + arg + "\"");
    } else {
      request.name = NameFlag("NAME", arg);
    }
  }
  CheckComplete(request);
  return request;
}

Json BuildTrainingJob(const SubmitRequest& request, const std::string& ns,
                      const std::string& queue) {
  Json spec = {{"queue", queue},
               {"workloadClass", request.workload_class},
               {"replicas", request.replicas},
               {"gpusPerReplica", GpuAmount(request)},
               {"template", PodTemplate(request)}};
  if (request.priority) spec["priority"] = *request.priority;
  if (!request.topology_key.empty())
    spec["topology"] = {{"key", request.topology_key}, {"mode", request.topology_mode}};
  return {{"apiVersion", "gpupool.dev/v1alpha1"},
          {"kind", "TrainingJob"},
          {"metadata", {{"name", request.name}, {"namespace", ns}}},
          {"spec", spec}};
}

}  // namespace gpupool::cli
