// Project: a person, team or business activity, with a quota in each queue.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/meta.h"

namespace gpupool::api {

struct QueueQuota {
  std::string queue;
  json::Quantity gpu;                   // fixed or guaranteed amount, by the queue's sharing
  std::optional<json::Quantity> limit;  // cap on total use in a Guaranteed queue
  int32_t over_quota_weight = 1;        // share of idle capacity
  std::optional<json::Quantity> cpu, memory;
};

struct ProjectQueueUsage {
  std::string queue;
  GpuUsage gpu;
  int32_t running_jobs = 0;
  int32_t pending_jobs = 0;
};

struct ProjectStatus {
  int64_t observed_generation = 0;
  std::optional<json::Quantity> guaranteed, allocated, over_quota;
  std::vector<ProjectQueueUsage> queues;
  std::vector<Condition> conditions;
};

struct ProjectSpec {
  std::vector<std::string> namespaces;
  int32_t priority = 0;
  std::vector<QueueQuota> quotas;
  std::string department;  // empty: none; otherwise a Department's name

  const QueueQuota* QuotaFor(const std::string& queue) const;
};

struct Project {
  ObjectMeta metadata;
  ProjectSpec spec;
  ProjectStatus status;
  Json raw;
};

Project DecodeProject(const Json& object, json::FieldErrors& errors);
Json ToJson(const Project& project);

}  // namespace gpupool::api
