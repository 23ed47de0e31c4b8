// The engine's view of the cluster at one instant: everything Decide() needs,
// nothing it must look up elsewhere. Plain integers only (milli-GPUs, milli-CPUs,
// bytes, seconds) so the operator and the trace replay can both build it without
// the api module. Names are the identities: decisions refer back to them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpupool::engine {

using MilliGpu = std::int64_t;  // 1000 = one whole GPU.
using MilliCpu = std::int64_t;  // 1000 = one core.
using Bytes = std::int64_t;
using Seconds = std::int64_t;  // Absolute times (start, arrival, now) share one epoch.
using Labels = std::map<std::string, std::string>;

inline constexpr MilliGpu kMilliPerGpu = 1000;

// Fixed: a project never uses more than its quota; nothing is lent or reclaimed.
// Guaranteed: quota is guaranteed; idle capacity is shared by over-quota weight and
// reclaimed when the owner of a quota needs it back.
enum class Sharing { kFixed, kGuaranteed };

// Build and Inference are non-preemptible and only ever admitted within quota.
enum class WorkloadClass { kTrain, kBuild, kInference };

struct Node {
  std::string name;
  Labels labels;          // Matched by queue and job node selectors; topology domains.
  std::string gpu_model;  // e.g. "A100"; matched by PendingJob::gpu_models.
  int gpus = 0;           // Physical devices, numbered 0..gpus-1 (at most 64).
  std::vector<MilliGpu> unmanaged_milli;  // Per device, used by pods gpupool does not
                                          // manage; empty means none. A device with any
                                          // unmanaged use only takes fractions.
  // Whole devices held by pods gpupool does not manage, device numbers unknown (the
  // Kubernetes API counts nvidia.com/gpu, it does not say which). Devices with use
  // of ours or in unmanaged_milli, plus this, never exceed `gpus`.
  int unmanaged_gpus = 0;
  MilliCpu cpu_milli = 0;   // Allocatable; unmanaged use already subtracted.
  Bytes memory_bytes = 0;   // Allocatable; unmanaged use already subtracted.
  bool schedulable = true;  // False: cordoned or not ready; running work stays.
};

struct Queue {
  std::string name;
  Labels node_selector;  // The queue's pool: nodes whose labels contain all of these.
  Sharing sharing = Sharing::kGuaranteed;
  // Over-quota jobs that have run for less than this are not reclaimed (they would
  // lose their first checkpoint); in-project priority preemption also respects it.
  Seconds min_runtime_seconds = 0;
  // A reclaim that over-quota work about to end by itself (it declares an expected
  // run time, and ends within this many seconds) would make room for waits for it
  // instead of stopping anything. 0: never waits.
  Seconds reclaim_wait_seconds = 0;
  // Over-quota work that has run longer than this is not reclaimed: it keeps its GPUs
  // until it ends, and the work a reclaim destroys stays below this many seconds per
  // GPU. 0: any over-quota work may be reclaimed (the guarantee is immediate).
  Seconds reclaim_max_runtime_seconds = 0;
  // With reclaim_max_runtime_seconds set: a project holding less than this percentage
  // of its guarantee may still stop over-quota work of any age (that part of the
  // guarantee stays immediate).
  int immediate_guarantee_percent = 50;
  bool reclaim = true;             // Guaranteed only: may take back lent capacity.
  bool preempt_in_project = true;  // Higher-priority jobs may preempt the project's own.
};

struct ProjectQuota {
  std::string queue;
  MilliGpu gpu = 0;                    // Fixed amount or guarantee, per the queue's sharing.
  MilliGpu limit = -1;                 // Guaranteed: never above this; -1 means the pool.
  std::int64_t over_quota_weight = 1;  // Share of idle capacity (water-filling).
  MilliCpu cpu_milli = -1;             // -1: no cpu quota. Otherwise counted like gpu.
  Bytes memory_bytes = -1;             // -1: no memory quota.
};

struct Project {
  std::string name;
  int priority = 0;                  // Higher first, across projects, within one ordering tier.
  std::vector<ProjectQuota> quotas;  // At most one per queue; none means quota 0.
  std::string department;            // Empty, or a Department that does not exist: none.
};

// A department's share of one queue. Its projects' guarantees there together never
// exceed `gpu` (scaled down in proportion when they would); idle GPUs go first to its
// own projects, then across departments by `over_quota_weight`.
struct DepartmentQuota {
  std::string queue;
  MilliGpu gpu = 0;
  MilliGpu limit = -1;  // Over-quota work of its projects never takes it above this; -1: none.
  std::int64_t over_quota_weight = 1;
};

// A group of projects sharing quotas: the level above projects. A department without
// an entry for a queue puts no bound on its projects there.
struct Department {
  std::string name;
  std::vector<DepartmentQuota> quotas;  // At most one per queue.
};

// Where one replica runs. Whole-GPU replicas list gpus_per_replica/1000 devices,
// each used whole; a fractional replica lists exactly one device it shares.
struct ReplicaPlacement {
  std::string node;
  std::vector<int> devices;
};

// Resources one replica asks for. gpu_milli is either below 1000 (a fraction of one
// device) or a whole multiple of 1000 (whole devices); anything else never fits.
struct ReplicaShape {
  MilliGpu gpu_milli = 0;
  MilliCpu cpu_milli = 0;
  Bytes memory_bytes = 0;
};

struct RunningJob {
  std::string name;  // namespace/name: unique among running and pending jobs.
  std::string uid;   // Tells apart a job deleted and created again under its name.
  std::string queue;
  std::string project;
  WorkloadClass workload_class = WorkloadClass::kTrain;
  int priority = 0;  // Within its project.
  Seconds start_time = 0;
  Seconds arrival_time = 0;  // Kept so a preempted job requeues at its first position.
  ReplicaShape shape;
  std::vector<ReplicaPlacement> replicas;  // Size is the replicas actually running.
  int min_replicas = 1;                    // Needed to requeue it as a pending job.
  int max_replicas = 1;
  // Seconds between the job's checkpoints: stopping it loses the work since the last
  // one. 0: it declares none, and loses everything since its start.
  Seconds checkpoint_interval_seconds = 0;
  // The job saves its state when stopped (TrainingJob spec.checkpoint.onPreemption):
  // stopping it loses no work.
  bool saves_on_preemption = false;
  // Seconds the job expects to run in all; 0: not declared. Reclaim may wait for
  // over-quota work about to end (Options::reclaim_wait_seconds).
  Seconds expected_runtime_seconds = 0;
  // Preempted, its pods still stopping: it holds its devices and counts against its
  // project, but is no victim and no candidate. Pending again once gone.
  bool terminating = false;
  // Shown over its project's quota, as the last cycle decided (Decisions::over_quota)
  // and the job's status says: a reclaim takes such jobs before any shown within.
  // Unset (a snapshot with no statuses behind it): if any running job leaves it
  // unset, the first cycle decides every job's standing itself before it starts.
  std::optional<bool> over_quota;
};

enum class TopologyMode { kNone, kPreferred, kRequired };

struct TopologyRequest {
  TopologyMode mode = TopologyMode::kNone;
  std::string key;  // Node label whose value names the domain, e.g. a rack label.
};

struct PendingJob {
  std::string name;
  std::string uid;
  std::string queue;
  std::string project;
  WorkloadClass workload_class = WorkloadClass::kTrain;
  int priority = 0;      // Within its project; higher first.
  int replicas = 1;      // Wanted; extra replicas beyond min_replicas are added if they fit.
  int min_replicas = 1;  // Gang: all of these are placed together or none.
  ReplicaShape shape;
  TopologyRequest topology;
  Labels node_selector;                     // Node labels the job requires.
  std::vector<std::string> gpu_models;      // Any of these; empty means any model.
  Seconds arrival_time = 0;                 // Earlier first among equals.
  Seconds checkpoint_interval_seconds = 0;  // As RunningJob.
  bool saves_on_preemption = false;         // As RunningJob.
  Seconds expected_runtime_seconds = 0;     // As RunningJob.
};

struct Snapshot {
  Seconds now = 0;
  std::vector<Node> nodes;
  std::vector<Queue> queues;
  std::vector<Project> projects;
  std::vector<RunningJob> running;
  std::vector<PendingJob> pending;
  std::vector<Department> departments;
};

const char* ToString(Sharing sharing);
const char* ToString(WorkloadClass workload_class);
bool IsPreemptible(WorkloadClass workload_class);

}  // namespace gpupool::engine
