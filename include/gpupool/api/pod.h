// The Pod and Node fields gpupool reads. Pods and Nodes are only ever patched
// by gpupool, never replaced, so these views need not carry every field.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/meta.h"

namespace gpupool::api {

inline constexpr char kGpuResource[] = "nvidia.com/gpu";

// Requests summed over a pod's containers (init containers: the largest).
struct ResourceAmounts {
  int64_t gpu_milli = 0;
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;

  bool operator==(const ResourceAmounts&) const = default;
};

struct NodeSelectorRequirement {
  std::string key;
  std::string op;  // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
};

struct Toleration {
  std::string key, op, value, effect;
};

struct PodCondition {
  std::string type, status, reason, message;
};

struct Pod {
  ObjectMeta metadata;
  std::string node_name;
  std::string scheduler_name;
  std::string priority_class_name;
  std::map<std::string, std::string> node_selector;
  // Required node affinity: terms are ORed, requirements inside a term ANDed.
  std::vector<std::vector<NodeSelectorRequirement>> required_affinity;
  std::vector<Toleration> tolerations;
  std::vector<std::string> scheduling_gates;
  ResourceAmounts requests;
  std::string phase;  // Pending, Running, Succeeded, Failed, Unknown
  std::vector<PodCondition> conditions;
  std::optional<int32_t> exit_code;  // of the first terminated container
  std::optional<std::string> start_time;
};

struct Taint {
  std::string key, value, effect;
};

struct Node {
  ObjectMeta metadata;
  bool unschedulable = false;
  std::vector<Taint> taints;
  ResourceAmounts allocatable;
  int64_t allocatable_pods = 0;
  bool ready = false;
};

Pod DecodePod(const Json& object, json::FieldErrors& errors);
Node DecodeNode(const Json& object, json::FieldErrors& errors);

// Reads a container-style resource list ({"cpu": "500m", "nvidia.com/gpu": 1}).
ResourceAmounts ReadResourceList(json::Reader& reader, std::string_view key);

}  // namespace gpupool::api
