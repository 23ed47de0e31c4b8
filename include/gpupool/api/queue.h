// Queue: one pool of nodes and the way its GPUs are shared among projects.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/meta.h"

namespace gpupool::api {

enum class Sharing { kFixed, kGuaranteed };

struct PreemptionSettings {
  int64_t min_runtime_seconds = 0;    // younger jobs are never reclaim victims
  int64_t grace_period_seconds = 30;  // eviction grace: the victim's checkpoint time
  // Reclaim waits up to this long for over-quota work about to end by itself.
  int64_t reclaim_wait_seconds = 0;
  // Over-quota jobs that have run longer than this are not reclaimed; 0: any are.
  int64_t reclaim_max_runtime_seconds = 0;
  // With it: below this percentage of its guarantee a project's reclaims spare nothing.
  int32_t immediate_guarantee_percent = 50;
};

enum class IdleAction { kPreempt, kAnnotate };

// What happens to a Build session whose GPUs stay below a utilization for a while.
struct IdlePolicy {
  int32_t utilization_below_percent = 0;  // 1..100
  int64_t for_seconds = 0;                // >= 1
  IdleAction action = IdleAction::kAnnotate;

  bool operator==(const IdlePolicy&) const = default;
};

struct QueueSpec {
  std::map<std::string, std::string> node_selector;  // empty: every GPU node
  Sharing sharing = Sharing::kGuaranteed;
  PreemptionSettings preemption;
  std::optional<IdlePolicy> idle;  // absent: idle sessions are left alone
};

struct QueueProjectUsage {
  std::string project;
  GpuUsage gpu;
};

struct QueueStatus {
  int64_t observed_generation = 0;
  std::optional<json::Quantity> capacity, guaranteed, allocated, over_quota;
  std::optional<json::Quantity> largest_node;  // the most GPUs one node of the pool has
  int32_t running_jobs = 0;
  int32_t pending_jobs = 0;
  std::vector<QueueProjectUsage> projects;
  std::vector<Condition> conditions;
};

struct Queue {
  ObjectMeta metadata;
  QueueSpec spec;
  QueueStatus status;
  Json raw;  // the object as read, so unknown fields survive a write-back
};

const char* SharingName(Sharing sharing);
const char* IdleActionName(IdleAction action);

// Reads a Queue; type errors and CRD-rule violations go to `errors`.
Queue DecodeQueue(const Json& object, json::FieldErrors& errors);
Json ToJson(const Queue& queue);

}  // namespace gpupool::api
