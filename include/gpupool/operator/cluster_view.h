// What one controller cycle reads: the informers' caches at one instant, as
// immutable decoded objects. Building the cycle's plan from a ClusterView is pure,
// so every rule of the controller is testable without an API server.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gpupool/api/department.h"
#include "gpupool/api/field_error.h"
#include "gpupool/api/pod.h"
#include "gpupool/api/project.h"
#include "gpupool/api/queue.h"
#include "gpupool/api/training_job.h"
#include "gpupool/operator/pod_view.h"
#include "gpupool/operator/time.h"
#include "gpupool/utilization/readings.h"

namespace gpupool::op {

// A decoded object plus the problems found in its spec (status problems are
// not the user's: a status gpupool cannot read is rebuilt).
template <typename T>
struct Decoded {
  T object;
  api::FieldErrors errors;
};
using QueueObject = Decoded<api::Queue>;
using ProjectObject = Decoded<api::Project>;
using DepartmentObject = Decoded<api::Department>;

struct JobObject : Decoded<api::TrainingJob> {
  api::ResourceAmounts requests;  // Of one replica's pod template (GPUs excluded).
};

struct NodeObject {
  std::string name;
  std::map<std::string, std::string> labels;
  std::int64_t gpus = 0;  // Whole devices (allocatable nvidia.com/gpu).
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  bool ready = false;
  bool unschedulable = false;
};

// A batch/v1 Job: the pods it runs at once are one gang when they ask gpupool
// to schedule them (docs/workloads.md).
struct BatchJobObject {
  std::string uid;
  std::string created;            // metadata.creationTimestamp: its pods' place in the queue.
  std::int32_t parallelism = 1;   // spec.parallelism (default 1).
  std::int32_t completions = -1;  // spec.completions; -1 when unset (a work queue).

  // The pods it runs at once: its parallelism, or its completions when fewer;
  // at least 1. It does not shrink as pods succeed: an admitted gang keeps its
  // slots.
  std::int32_t GangSize() const;
};

QueueObject DecodeQueueObject(const nlohmann::json& object);
BatchJobObject DecodeBatchJobObject(const nlohmann::json& object);
ProjectObject DecodeProjectObject(const nlohmann::json& object);
DepartmentObject DecodeDepartmentObject(const nlohmann::json& object);
JobObject DecodeJobObject(const nlohmann::json& object);
NodeObject DecodeNodeObject(const nlohmann::json& object);

template <typename T>
using Shared = std::shared_ptr<const T>;

struct ClusterView {
  EpochSeconds now = 0;
  std::vector<Shared<QueueObject>> queues;
  std::vector<Shared<ProjectObject>> projects;
  std::vector<Shared<DepartmentObject>> departments;
  std::vector<Shared<JobObject>> jobs;
  std::vector<Shared<NodeObject>> nodes;
  std::vector<Shared<PodView>> pods;
  std::vector<Shared<BatchJobObject>> batch_jobs;
  std::set<std::string> services;  // "namespace/name" of the gang Services gpupool made.
  // The last GPU utilization scrape; null when no exporter is configured.
  utilization::SharedReadings gpu_readings;
};

}  // namespace gpupool::op
