#include "gpupool/api/pod.h"

#include <algorithm>

namespace gpupool::api {
namespace {

// Requests, falling back to limits per resource as the API server defaults them.
ResourceAmounts ContainerRequests(json::Reader& container) {
  const Json* resources = container.Object("resources");
  if (!resources) return {};
  json::Reader reader(*resources, container, "resources");
  ResourceAmounts requests = ReadResourceList(reader, "requests");
  ResourceAmounts limits = ReadResourceList(reader, "limits");
  if (!reader.Has("requests") || requests.gpu_milli == 0) requests.gpu_milli = limits.gpu_milli;
  if (requests.cpu_milli == 0) requests.cpu_milli = limits.cpu_milli;
  if (requests.memory_bytes == 0) requests.memory_bytes = limits.memory_bytes;
  return requests;
}

ResourceAmounts SumContainers(json::Reader& spec, std::string_view key, bool take_max) {
  ResourceAmounts total;
  spec.ForEachItem(key, [&](json::Reader& container) {
    ResourceAmounts one = ContainerRequests(container);
    if (take_max) {
      total.gpu_milli = std::max(total.gpu_milli, one.gpu_milli);
      total.cpu_milli = std::max(total.cpu_milli, one.cpu_milli);
      total.memory_bytes = std::max(total.memory_bytes, one.memory_bytes);
    } else {
      total.gpu_milli += one.gpu_milli;
      total.cpu_milli += one.cpu_milli;
      total.memory_bytes += one.memory_bytes;
    }
  });
  return total;
}

std::vector<NodeSelectorRequirement> ReadTerm(json::Reader& term) {
  std::vector<NodeSelectorRequirement> requirements;
  term.ForEachItem("matchExpressions", [&](json::Reader& item) {
    NodeSelectorRequirement requirement;
    requirement.key = item.String("key", json::Presence::kRequired).value_or("");
    requirement.op = item.String("operator", json::Presence::kRequired).value_or("");
    requirement.values = item.StringList("values");
    requirements.push_back(std::move(requirement));
  });
  return requirements;
}

std::vector<std::vector<NodeSelectorRequirement>> ReadRequiredAffinity(json::Reader& spec) {
  std::vector<std::vector<NodeSelectorRequirement>> terms;
  const Json* affinity = spec.Object("affinity");
  if (!affinity) return terms;
  json::Reader affinity_reader(*affinity, spec, "affinity");
  const Json* node_affinity = affinity_reader.Object("nodeAffinity");
  if (!node_affinity) return terms;
  json::Reader node_reader(*node_affinity, affinity_reader, "nodeAffinity");
  constexpr std::string_view kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
  const Json* required = node_reader.Object(kRequired);
  if (!required) return terms;
  json::Reader selector(*required, node_reader, kRequired);
  selector.ForEachItem("nodeSelectorTerms",
                       [&](json::Reader& term) { terms.push_back(ReadTerm(term)); });
  return terms;
}

std::vector<Toleration> ReadTolerations(json::Reader& spec) {
  std::vector<Toleration> tolerations;
  spec.ForEachItem("tolerations", [&](json::Reader& item) {
    tolerations.push_back({item.String("key").value_or(""), item.String("operator").value_or(""),
                           item.String("value").value_or(""), item.String("effect").value_or("")});
  });
  return tolerations;
}

std::vector<std::string> ReadGates(json::Reader& spec) {
  std::vector<std::string> gates;
  spec.ForEachItem("schedulingGates", [&](json::Reader& item) {
    gates.push_back(item.String("name", json::Presence::kRequired).value_or(""));
  });
  return gates;
}

void ReadPodSpec(json::Reader& spec, Pod& pod) {
  pod.node_name = spec.String("nodeName").value_or("");
  pod.scheduler_name = spec.String("schedulerName").value_or("");
  pod.priority_class_name = spec.String("priorityClassName").value_or("");
  pod.node_selector = spec.StringMap("nodeSelector");
  pod.required_affinity = ReadRequiredAffinity(spec);
  pod.tolerations = ReadTolerations(spec);
  pod.scheduling_gates = ReadGates(spec);
  ResourceAmounts app = SumContainers(spec, "containers", false);
  ResourceAmounts init = SumContainers(spec, "initContainers", true);
  pod.requests = {std::max(app.gpu_milli, init.gpu_milli), std::max(app.cpu_milli, init.cpu_milli),
                  std::max(app.memory_bytes, init.memory_bytes)};
}

std::optional<int32_t> FirstExitCode(const Json& status) {
  auto statuses = status.find("containerStatuses");
  if (statuses == status.end() || !statuses->is_array()) return std::nullopt;
  for (const auto& container : *statuses) {
    const Json* terminated = nullptr;
    if (container.is_object() && container.contains("state") && container["state"].is_object() &&
        container["state"].contains("terminated")) {
      terminated = &container["state"]["terminated"];
    }
    if (terminated && terminated->is_object() && terminated->contains("exitCode") &&
        (*terminated)["exitCode"].is_number_integer()) {
      return (*terminated)["exitCode"].get<int32_t>();
    }
  }
  return std::nullopt;
}

void ReadPodStatus(json::Reader& status, const Json& raw, Pod& pod) {
  pod.phase = status.String("phase").value_or("");
  pod.start_time = status.String("startTime");
  status.ForEachItem("conditions", [&](json::Reader& item) {
    pod.conditions.push_back({item.String("type").value_or(""), item.String("status").value_or(""),
                              item.String("reason").value_or(""),
                              item.String("message").value_or("")});
  });
  pod.exit_code = FirstExitCode(raw);
}

}  // namespace

ResourceAmounts ReadResourceList(json::Reader& reader, std::string_view key) {
  ResourceAmounts amounts;
  const Json* list = reader.Object(key);
  if (!list) return amounts;
  json::Reader resources(*list, reader, key);
  amounts.gpu_milli = resources.QuantityField(kGpuResource).value_or(json::Quantity{}).milli;
  amounts.cpu_milli = resources.QuantityField("cpu").value_or(json::Quantity{}).milli;
  int64_t memory_milli = resources.QuantityField("memory").value_or(json::Quantity{}).milli;
  amounts.memory_bytes = (memory_milli + 999) / 1000;
  return amounts;
}

Pod DecodePod(const Json& object, json::FieldErrors& errors) {
  Pod pod;
  json::Reader root(object, "", errors);
  pod.metadata = ReadObjectMeta(root, json::Presence::kRequired);
  if (const Json* spec = root.Object("spec")) {
    json::Reader reader(*spec, root, "spec");
    ReadPodSpec(reader, pod);
  }
  if (const Json* status = root.Object("status")) {
    json::Reader reader(*status, root, "status");
    ReadPodStatus(reader, *status, pod);
  }
  return pod;
}

}  // namespace gpupool::api
