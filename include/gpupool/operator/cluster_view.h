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
#include "gpupool/api/pod.h"
#include "gpupool/api/project.h"
#include "gpupool/api/queue.h"
#include "gpupool/api/training_job.h"
#include "gpupool/json/field_error.h"
#include "gpupool/kube/resource.h"
#include "gpupool/operator/pod_view.h"
#include "gpupool/operator/time.h"
#include "gpupool/utilization/readings.h"

namespace gpupool::op {

// A decoded object plus the problems found in its spec (status problems are
// not the user's: a status gpupool cannot read is rebuilt).
template <typename T>
struct Decoded {
  T object;
  json::FieldErrors errors;
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

// An owner of pods that ask gpupool to schedule them and name no pod group: a
// batch/v1 Job, a JobSet, a PyTorchJob or an MPIJob. Its pods are one gang
// (docs/workloads.md); the pods of a Job that a JobSet or an MPIJob controls
// are that owner's.
struct OwnerObject {
  std::string api_version, kind, ns, name, uid;
  std::string created;  // metadata.creationTimestamp: its gang's place in the queue.
  // Its own controlling owner (a Job's JobSet or MPIJob); "" when none.
  std::string controller_kind, controller_name, controller_uid;
  // The pods asking for GPUs it runs at once, at least 1: a Job's parallelism,
  // or its completions when fewer; the sum of a JobSet's replicated Jobs, or of
  // a PyTorchJob's or MPIJob's replicas, whose pod templates ask for GPUs. It
  // does not shrink as pods succeed: an admitted gang keeps its slots.
  std::int32_t gang_size = 1;
};

// An owner kind whose pods gpupool groups, and where the API serves it.
struct OwnerKind {
  kube::Resource resource;
  std::string kind;  // "Job", "JobSet", "PyTorchJob", "MPIJob"
};
const std::vector<OwnerKind>& OwnerKinds();

QueueObject DecodeQueueObject(const nlohmann::json& object);
// An object of `kind` (list items carry no kind of their own).
OwnerObject DecodeOwnerObject(const nlohmann::json& object, const OwnerKind& kind);
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
  std::vector<Shared<OwnerObject>> owners;  // Of the kinds the API serves.
  std::set<std::string> services;           // "namespace/name" of the gang Services gpupool made.
  // The last GPU utilization scrape; null when no exporter is configured.
  utilization::SharedReadings gpu_readings;
};

}  // namespace gpupool::op
