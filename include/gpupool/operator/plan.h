// One controller cycle as data: what to write to the API server, in order, and
// why. PlanCycle(view) is pure: the caches in, the writes out, so every rule of
// the controller is testable table by table and a cycle can be replayed.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/engine/engine.h"
#include "gpupool/engine/live_engine.h"
#include "gpupool/operator/cluster_view.h"

namespace gpupool::op {

using Json = nlohmann::json;

struct PlanOptions {
  // Admitted pods not all Running after this long send the job back to its queue.
  EpochSeconds start_timeout_seconds = 300;
  // First delay before a job whose start failed may be admitted again; doubles
  // with every restart, up to max_backoff_seconds.
  EpochSeconds backoff_seconds = 10;
  EpochSeconds max_backoff_seconds = 600;
  // Prefix of the PriorityClasses the pods name: gpupool-train, -build, -inference.
  std::string priority_class_prefix = "gpupool-";
  int master_port = 29500;
  // Where reservation pods live (the controller's own namespace), and what they
  // run: a container that reports the device it was given (docs/operator.md,
  // "Fractions next to the device plugin").
  std::string reservation_namespace = "default";
  std::string reservation_image = "gpupool";
  engine::Options engine;
  // At most this many job statuses that neither admit nor free anything
  // (waiting reasons, Running) are written per cycle, plus one for every job
  // the cycle admits and an eighth of those statuses: a window of them starting
  // `status_turn` in, wrapping around. The others are not built (a burst's
  // thousands of patches would be held only to be dropped), and neither are
  // their jobs' Events: the next cycle plans them again from the same
  // difference. Queue, Project and Department statuses are all written. 0: no limit.
  std::size_t status_writes_per_cycle = 0;
  std::size_t status_turn = 0;
  // Whether a waiting job has its pods, gated, for admission to release (a
  // create and a patch a pod); else they are created at admission, released
  // (one create), and a waiting job shows no pods.
  bool gated_waiting_pods = true;
  // At most this many gated pods (a waiting job's, or an admitted job's that
  // cannot be released yet) are planned per cycle, in job order: a waiting job's
  // pods are a courtesy, and a job of thousands of replicas must not hold a
  // cycle, and every other job's decision, for the minutes its pods take at the
  // client's rate limit. The others are not built; the next cycle plans them
  // again. Released pods are never left out. 0: no limit.
  std::size_t gated_pods_per_cycle = 0;
};

enum class Kind { kQueue, kProject, kTrainingJob, kPod, kDepartment };

// A status subresource write: a merge patch of `status` that sets every key of
// `status` and removes the keys of the old status it no longer has. The
// resourceVersion makes it a compare-and-swap: a job that changed since the
// cycle read it is not overwritten, and the next cycle decides again.
struct StatusWrite {
  Kind kind = Kind::kTrainingJob;
  std::string ns, name;
  Json patch;  // {"metadata": {"resourceVersion": ...}, "status": {...}}
  // It only informs (a job's waiting reason, Running, utilization): the writer
  // makes it only while the client's rate limit has room to spare. Never for a
  // change of a job's shown standing, which a reclaim goes by.
  bool courtesy = false;
};

// A pod to create, held as JSON text: a cycle that admits thousands of jobs
// holds thousands of pods, and the text is a sixth of the parsed form's size.
struct PodCreate {
  std::string job_key;  // "namespace/name" of the owning TrainingJob.
  std::int64_t job_generation = 0;
  std::string ns, name;  // The pod's.
  std::string body;
  bool gated = false;             // Created with gpupool's admission gate.
  std::int32_t job_restarts = 0;  // The job's status.restartCount.

  Json Pod() const;  // The body parsed.
};

// Pins a gated pod to its node and opens its admission gate (a JSON patch whose
// first operations test the pod's uid and gate, so a repeat or a replaced pod
// cannot be released by mistake).
struct PodRelease {
  std::string job_key;
  std::string ns, name;
  Json patch;
};

struct PodDelete {
  std::string ns, name, uid;
  std::optional<std::int64_t> grace_period_seconds;
  bool evict = false;  // Through the Eviction API (preemption), else a plain delete.
  // "namespace/name" of the TrainingJob whose pod it is ("" for other pods):
  // unless evicted, the pod stays if that job's releasing status could not be
  // written.
  std::string job_key;
};

// A merge patch of a pod's metadata (the idle annotation), or with `status` a
// strategic merge patch of its status (a pod group's condition, merged by type).
struct PodPatch {
  std::string ns, name;
  Json patch;
  bool status = false;
};

struct EventNote {
  Kind kind = Kind::kTrainingJob;
  std::string ns, name, uid;
  std::string type;  // Normal or Warning
  std::string reason, action, message;
  // Set for an object of a kind gpupool does not own (a pod's owner, such as a
  // batch Job): its apiVersion and kind, in place of `kind`'s.
  std::string api_version, object_kind;
};

struct Plan {
  // In the order the writer applies them: first what frees devices (victims,
  // requeues, finished jobs whose pods must stop) and their pods, then
  // admissions and their pods, then the other statuses.
  std::vector<StatusWrite> releasing_statuses;
  std::vector<PodDelete> pod_deletes;
  std::vector<StatusWrite> admission_statuses;
  std::vector<Json> services;
  std::vector<Json> reservation_pods;  // Created with the Services, before admissions.
  std::vector<PodCreate> pod_creates;
  std::vector<PodRelease> pod_releases;
  // Jobs that ended with all their pods: their devices are free already, so
  // they follow the admissions instead of delaying them.
  std::vector<StatusWrite> finished_statuses;
  std::vector<StatusWrite> other_statuses;  // Waiting reasons, projects, queues.
  std::vector<PodPatch> pod_patches;
  std::vector<EventNote> events;
  // When the controller must look again even if nothing changes (a start
  // timeout, a deadline, a backoff ending); 0: no such moment.
  EpochSeconds wake_at = 0;
  engine::Decisions decisions;  // What the engine decided, for logs and tests.
  // Job statuses left to later cycles (PlanOptions::status_writes_per_cycle),
  // and where the next cycle's window starts.
  std::size_t deferred_statuses = 0;
  std::size_t next_status_turn = 0;
  std::size_t deferred_gated_pods = 0;  // Left out by PlanOptions::gated_pods_per_cycle.
  // Pod groups (docs/workloads.md) by their phase after this cycle, named as a
  // TrainingJob's: they have no status of their own to write it in.
  std::map<std::string, std::int64_t> pod_group_phases;

  // Every status write, in the writer's order.
  std::array<const std::vector<StatusWrite>*, 4> StatusWrites() const {
    return {&releasing_statuses, &admission_statuses, &finished_statuses, &other_statuses};
  }
};

Plan PlanCycle(const ClusterView& view, const PlanOptions& options);

// The same cycle deciding with an engine kept across cycles (the controller's way):
// the snapshot's differences from the last cycle are applied to it, not rebuilt.
// `live` must have been made with `options.engine`.
Plan PlanCycle(const ClusterView& view, const PlanOptions& options, engine::LiveEngine& live);

}  // namespace gpupool::op
