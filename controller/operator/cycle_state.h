// The working state of one PlanCycle: the view indexed, one record per
// TrainingJob carrying its desired status, and the plan being filled in.
#pragma once

#include <deque>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "gpupool/operator/plan.h"

namespace gpupool::op::internal {

// Where a job stands this cycle, derived from its status and pods.
enum class Stage {
  kIgnored,   // Invalid, or no project owns its namespace: nothing happens to it.
  kWaiting,   // Queued or Preempted: goes to the engine as pending.
  kHolding,   // Admitted or Running: holds the devices of its placement.
  kFinished,  // Succeeded or Failed.
};

struct JobRecord {
  const JobObject* source = nullptr;
  std::string key;  // "namespace/name": the engine's name for the job.
  std::string project;
  Stage stage = Stage::kWaiting;
  bool eligible = true;                // Waiting and not backing off: the engine may admit it.
  api::TrainingJobStatus status;       // Desired; starts as observed.
  std::vector<const PodView*> pods;    // By replica index; nullptr where none exists.
  std::vector<const PodView*> strays;  // Labelled with the job but not its pods.
  // Its pods must stop this cycle (preempted, requeued, finished).
  bool stop_pods = false;
  bool evict = false;  // Through the Eviction API, with the queue's grace period.
  std::optional<std::int64_t> grace_seconds;
  bool frees_devices = false;  // Its status write gives devices back.
  bool admitted_now = false;
  bool noted = false;  // An Event about it was planned this cycle.
  // Pods of another owner (BuildPodGroupRecords): `source` is made from them,
  // `pods` are all of them by name, and their state lives on them.
  bool pod_group = false;
  // The owner whose pods they are (a Job, JobSet, PyTorchJob or MPIJob), when
  // seen; its kind and name ("PyTorchJob bert") when not: its gang waits.
  const OwnerObject* owner = nullptr;
  std::string unseen_owner;
  // Its owner's pods that ask for no GPU (an MPIJob's launcher): outside the
  // gang, released once it is admitted, stopped with it.
  std::vector<const PodView*> riders;

  const api::TrainingJob& job() const { return source->object; }
  const std::string& ns() const { return job().metadata.namespace_; }
  const std::string& name() const { return job().metadata.name; }
};

// Physical use of one node's GPUs by pods, whoever owns them.
struct NodeUse {
  std::int64_t gpu_milli = 0;        // Pods bound or released to it, not finished.
  std::int64_t unmanaged_milli = 0;  // Of which pods gpupool does not manage.
};

// Nodes a queue's pool shares with the pool of `first`, an earlier queue.
struct QueueOverlap {
  std::string first;
  std::vector<std::string> nodes;
};

struct CycleState {
  CycleState(const ClusterView& view, const PlanOptions& options)
      : view(view), options(options), now(view.now) {}

  const ClusterView& view;
  const PlanOptions& options;
  EpochSeconds now;
  std::size_t gated_pods_planned = 0;                // Against PlanOptions::gated_pods_per_cycle.
  std::map<std::string, const QueueObject*> queues;  // Valid queues by name.
  // A valid queue whose pool shares nodes with a queue created before it is
  // refused (not in `queues`): a node belongs to one pool, so that no GPU is
  // promised twice. Refused queues by name, and for each queue it overlaps
  // with, the others (either way).
  std::map<std::string, QueueOverlap> refused_queues;
  std::map<std::string, std::vector<std::string>> overlapping_queues;
  std::map<std::string, const ProjectObject*> projects;        // Valid projects by name.
  std::map<std::string, const DepartmentObject*> departments;  // Valid departments by name.
  std::map<std::string, std::string> project_of_namespace;
  std::map<std::string, const NodeObject*> nodes;
  // The GPUs of the ready, schedulable nodes of a queue's pool.
  struct PoolGpus {
    std::int64_t total_milli = 0;
    std::int64_t largest_node_milli = 0;  // the most one of its nodes has
  };
  // Each valid queue's pool, by queue name: summed once a cycle, not once per
  // project quota.
  std::map<std::string, PoolGpus> queue_pools;
  std::map<std::string, NodeUse> node_use;
  // Reservation pods by (node, device slot), and those that are no such pod's
  // (a name that does not match its node and slot).
  std::map<std::pair<std::string, int>, const PodView*> reservations;
  std::vector<const PodView*> stray_reservations;
  // Reservations whose device report is refused (not one device of the node, or
  // one another reservation reports too): nothing is told or decided from it.
  std::set<const PodView*> refused_reports;
  std::vector<JobRecord> jobs;              // Reserved once: the index below views their keys.
  std::deque<JobObject> pod_group_sources;  // What pod groups' records point to.
  std::unordered_map<std::string_view, std::size_t> job_index;
  Plan plan;

  JobRecord* Job(std::string_view key) {
    auto it = job_index.find(key);
    return it == job_index.end() ? nullptr : &jobs[it->second];
  }
  void Wake(EpochSeconds at) {
    if (at > now && (plan.wake_at == 0 || at < plan.wake_at)) plan.wake_at = at;
  }
  // Told on its first pod, and on its owner (a Job, a PyTorchJob) or that
  // pod's, where its user looks.
  void PodGroupEvent(const JobRecord& job, const std::string& type, const std::string& reason,
                     const std::string& action, const std::string& message) {
    const PodView& pod = *job.pods.front();
    plan.events.push_back({Kind::kPod, pod.ns, pod.name, pod.uid, type, reason, action, message});
    if (job.owner) {
      plan.events.push_back({Kind::kPod, pod.ns, job.owner->name, job.owner->uid, type, reason,
                             action, message, job.owner->api_version, job.owner->kind});
      return;
    }
    const PodRequest& request = *pod.request;
    if (request.owner_name.empty() || request.owner_kind.empty()) return;
    plan.events.push_back({Kind::kPod, pod.ns, request.owner_name, pod.owner_uid, type, reason,
                           action, message, request.owner_api_version, request.owner_kind});
  }
  void Event(JobRecord& job, const std::string& type, const std::string& reason,
             const std::string& action, const std::string& message) {
    job.noted = true;
    if (job.pod_group) return PodGroupEvent(job, type, reason, action, message);
    plan.events.push_back({Kind::kTrainingJob, job.ns(), job.name(), job.job().metadata.uid, type,
                           reason, action, message});
  }
};

// Whether each node of `need` (milli-GPUs by node) has that much room left now,
// bound or released pods counted; if so, counts the need in.
bool TakeNodeRoom(CycleState& state, const std::map<std::string, std::int64_t>& need);

// Whether `node` is in `queue`'s pool: it has GPUs and every label the
// queue's node selector asks for.
bool InPool(const api::Queue& queue, const NodeObject& node);

// The Ready reasons of a project refused a namespace another project holds,
// and of a queue refused nodes another queue's pool holds.
inline constexpr char kNamespaceConflict[] = "NamespaceConflict";
inline constexpr char kNodesOverlap[] = "NodesOverlap";

// Whether `source`'s status, as last written, shows it holding what it claims:
// it has a Ready condition, and not one that refuses it with `refused_reason`.
template <typename Source>
bool HoldsItsClaim(const Source* source, std::string_view refused_reason) {
  const api::Condition* ready = api::FindCondition(source->object.status.conditions, "Ready");
  return ready != nullptr && ready->reason != refused_reason;
}

// Whether `a`'s claim comes before `b`'s: of two objects claiming the same
// thing, the first keeps it, whatever their names. First by creation; within
// one second (a creationTimestamp has no finer grain) the one already holding
// its claim goes first, so that an object made in the same second as one in
// force cannot take its place; then the UID.
template <typename Source>
bool ClaimsBefore(const Source* a, const Source* b, std::string_view refused_reason) {
  const auto& x = a->object.metadata;
  const auto& y = b->object.metadata;
  const bool a_waits = !HoldsItsClaim(a, refused_reason);
  const bool b_waits = !HoldsItsClaim(b, refused_reason);
  return std::tie(x.creation_timestamp, a_waits, x.uid) <
         std::tie(y.creation_timestamp, b_waits, y.uid);
}

// Cycle step 1, queues: the valid ones in creation order, each in force unless
// its pool shares nodes with one already in force.
void IndexQueues(CycleState& state);
// "1 node", "3 nodes".
std::string CountNodes(std::size_t count);
// Why `queue` is refused for overlapping an earlier queue ("" when it is not).
std::string QueueOverlapMessage(const CycleState& state, const std::string& queue);

// Pod groups (pod_groups.cpp, docs/workloads.md): their records, added by
// BuildJobRecords, which also counts the pods that hold no slot of their group's
// admission as unmanaged use; their lifecycle, pods and written state, called by
// the steps below for records with `pod_group`.
void BuildPodGroupRecords(CycleState& state);
void AdvancePodGroup(CycleState& state, JobRecord& job);
void PlanPodGroupPods(CycleState& state, JobRecord& job);
void PlanPodGroupState(CycleState& state, const JobRecord& job);

// Steps of PlanCycle, in order.
void IndexCluster(CycleState& state);
void BuildJobRecords(CycleState& state);
void AdvanceLifecycles(CycleState& state);
void PlanUtilization(CycleState& state);
engine::Snapshot BuildSnapshot(CycleState& state);
void ApplyDecisions(CycleState& state, const engine::Decisions& decisions);
void PlanReservations(CycleState& state);
void PlanPods(CycleState& state);
void PlanJobStatuses(CycleState& state);
void PlanUsageStatuses(CycleState& state, const engine::Decisions& decisions);

// Whether a job waiting for `reason` waits for a person to act (fix its spec,
// its namespace's Project, a limit, the cluster): its Event is a Warning, and it
// gets no gated pods, since none could start before that.
bool WaitsForAPerson(const std::string& reason);

// Of the jobs whose status writes neither admit nor free anything, in the
// cycle's order, those PlanOptions::status_writes_per_cycle lets this cycle
// write; the others' Events are dropped with them (PlanJobStatuses).
std::span<JobRecord* const> WithinStatusBudget(CycleState& state, std::vector<JobRecord*>& jobs);

// A status patch from `old_status` to `new_status`; nullopt when they agree.
std::optional<StatusWrite> MakeStatusWrite(Kind kind, const api::ObjectMeta& meta,
                                           const Json& old_status, const Json& new_status);

// Sets (or adds) a condition; its transition time moves only when status does.
void SetCondition(std::vector<api::Condition>& conditions, const std::string& type,
                  const std::string& status, const std::string& reason, const std::string& message,
                  EpochSeconds now, std::int64_t generation);

// A job back in its queue: placement released, pods stopped, its place in line kept.
void Requeue(CycleState& state, JobRecord& job, api::JobPhase phase, const std::string& reason,
             const std::string& message);
// A requeued job's pods stop as a preemption stops them: evicted, with its
// queue's grace period to checkpoint.
void StopAsPreempted(const CycleState& state, JobRecord& job);
// A job done: devices released, pods that still run stopped.
void Finish(CycleState& state, JobRecord& job, api::JobPhase phase, const std::string& reason,
            const std::string& message);

}  // namespace gpupool::op::internal
