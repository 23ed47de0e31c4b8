// TrainingJob: a workload of one or more replicas (a gang) asking for GPUs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/meta.h"

namespace gpupool::api {

enum class WorkloadClass { kTrain, kBuild, kInference };
enum class TopologyMode { kRequired, kPreferred };
enum class JobPhase { kQueued, kAdmitted, kRunning, kPreempted, kSucceeded, kFailed, kSuspended };

struct TopologySpec {
  std::string key;  // node label naming the domain, e.g. "rack"
  TopologyMode mode = TopologyMode::kPreferred;
};

// How the job saves its state: gpupool tells its pods where (GPUPOOL_CHECKPOINT_PATH)
// and, in the pods that replace preempted or failed ones, where to resume from
// (GPUPOOL_RESUME_FROM).
struct CheckpointSpec {
  // The job saves its state when its pods are sent SIGTERM, within the queue's
  // grace period: a preemption then loses nothing it saved.
  bool on_preemption = false;
  std::string path;  // Absolute; required when on_preemption.
};

struct TrainingJobSpec {
  std::string queue;
  WorkloadClass workload_class = WorkloadClass::kTrain;
  int32_t priority = 0;
  int32_t replicas = 1;
  std::optional<int32_t> min_replicas;  // absent: all replicas
  json::Quantity gpus_per_replica;
  std::optional<TopologySpec> topology;
  Json pod_template;  // a PodTemplateSpec, copied into every replica's pod
  int32_t backoff_limit = 3;
  std::optional<int64_t> active_deadline_seconds;
  // Seconds between the job's own checkpoints: a preemption loses at most this much
  // of its work. Absent: it declares none, and a preemption loses all of it.
  std::optional<int64_t> checkpoint_interval_seconds;
  std::optional<CheckpointSpec> checkpoint;
  // How long the job expects to run; reclaim may wait for over-quota work about to end.
  std::optional<int64_t> expected_runtime_seconds;
  // As a batch Job's: true stops the job's pods and keeps it out of line (phase
  // Suspended) until it is set false again; the job then queues anew.
  bool suspend = false;

  int32_t EffectiveMinReplicas() const { return min_replicas.value_or(replicas); }
  bool IsFractional() const { return gpus_per_replica.milli % 1000 != 0; }
};

struct ReplicaPlacement {
  int32_t replica = 0;
  std::string node;
  std::vector<int32_t> devices;

  bool operator==(const ReplicaPlacement&) const = default;
};

struct TrainingJobStatus {
  std::optional<JobPhase> phase;
  std::string project;
  std::vector<Condition> conditions;
  std::optional<std::string> queued_time, admitted_time, start_time, completion_time;
  int32_t preemption_count = 0;
  int32_t restart_count = 0;
  std::optional<json::Quantity> allocated_gpu;
  // GPUs the job asks for (replicas x gpusPerReplica), in every phase.
  std::optional<json::Quantity> requested_gpu;
  // The queue it was admitted into, while it holds devices.
  std::string admitted_queue;
  bool over_quota = false;
  std::vector<ReplicaPlacement> placement;
  // Mean utilization of its running pods' GPUs, as the DCGM exporter last read it.
  std::optional<int32_t> gpu_utilization_percent;
  int64_t observed_generation = 0;

  bool operator==(const TrainingJobStatus&) const = default;
};

struct TrainingJob {
  ObjectMeta metadata;
  TrainingJobSpec spec;
  TrainingJobStatus status;
  Json raw;
};

const char* WorkloadClassName(WorkloadClass workload_class);
const char* JobPhaseName(JobPhase phase);
// Build and Inference work is never preempted and runs only within quota.
bool IsPreemptible(WorkloadClass workload_class);

// kDrop: `raw` stays null, for a reader that only patches (not a copy of the
// whole object per decode).
TrainingJob DecodeTrainingJob(const Json& object, json::FieldErrors& errors,
                              RawJson raw = RawJson::kKeep);
Json ToJson(const TrainingJob& job);
// The status alone, as the status subresource holds it.
Json TrainingJobStatusToJson(const TrainingJobStatus& status);
// A status as TrainingJobStatusToJson writes it; what cannot be read is left out
// and named in `errors`.
TrainingJobStatus DecodeTrainingJobStatus(const Json& status, json::FieldErrors& errors);

}  // namespace gpupool::api
