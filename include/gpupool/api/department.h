// Department: a group of projects with a quota per queue that its projects'
// guarantees share, a limit on what they use together and a weight for idle GPUs
// across departments. Projects name their department.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/meta.h"

namespace gpupool::api {

struct DepartmentQuota {
  std::string queue;
  json::Quantity gpu;  // the department's quota: its projects' guarantees fit in it
  std::optional<json::Quantity> limit;  // cap on what its projects borrow together
  int32_t over_quota_weight = 1;        // share of idle capacity across departments
};

struct DepartmentQueueUsage {
  std::string queue;
  GpuUsage gpu;
};

struct DepartmentStatus {
  int64_t observed_generation = 0;
  std::optional<json::Quantity> guaranteed, allocated, over_quota;
  std::vector<std::string> projects;  // the projects naming it, by name
  std::vector<DepartmentQueueUsage> queues;
  std::vector<Condition> conditions;
};

struct DepartmentSpec {
  std::vector<DepartmentQuota> quotas;
};

struct Department {
  ObjectMeta metadata;
  DepartmentSpec spec;
  DepartmentStatus status;
  Json raw;
};

Department DecodeDepartment(const Json& object, json::FieldErrors& errors);
Json ToJson(const Department& department);

}  // namespace gpupool::api
