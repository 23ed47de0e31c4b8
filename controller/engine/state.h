// The engine's working state: nodes with per-device usage, jobs, per-project
// accounting, ordered pending and victim indexes. Built from a Snapshot, updated in
// place by admissions, completions and preemptions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpupool/engine/options.h"
#include "gpupool/engine/snapshot.h"
#include "name_index.h"
#include "node_set.h"
#include "shapes.h"

namespace gpupool::engine::internal {

// Aligned to a cache line, with the fields every take, release and fit test reads
// first: such a test costs one or two lines of the node table.
struct alignas(64) NodeState {
  std::vector<std::int32_t> used;  // Milli-GPUs used per device, unmanaged_milli included.
  MilliCpu cpu_free = 0;
  Bytes memory_free = 0;
  // Devices with nothing on them, less unmanaged_gpus: whole devices the engine may
  // take. Negative when unmanaged pods hold more than that (they came after our work).
  int full_free = 0;
  int reserved_full = 0;  // Whole devices held this cycle for a blocked job.
  // Whole devices held for a job waiting over its quota: only over-quota work of lower
  // priority is kept off them.
  int reserved_over = 0;
  int unmanaged_gpus = 0;  // Whole devices of unmanaged pods, device numbers unknown.
  bool schedulable = true;
  bool shared = false;        // In the shared-node index.
  bool stale = false;         // Changed since the indexes were last brought up to date.
  int indexed_available = 0;  // Its bucket in the best-fit index.
  int reserve_target = 0;     // Devices those jobs will use here: freed ones are held too.
  int over_target = 0;        // The same for the over-quota job holding room here,
  int over_priority = 0;      // which keeps off over-quota work of lower priority.
  std::vector<int> queues;    // Queues whose pool holds this node.
  MilliGpu capacity = 0;      // What the node adds to its pools while schedulable.
  std::string name;
  Labels labels;
  std::string model;
  std::vector<std::int32_t> unmanaged_milli;  // Per device; empty: none.
  MilliCpu cpu_total = 0;                     // Allocatable, as given.
  Bytes memory_total = 0;
  bool removed = false;  // Deleted: its index waits for reuse.
};

// The room a cycle holds for one waiting job: whole devices per node that it will use
// once running work there ends.
struct HeldRoom {
  int job = -1;
  bool over_quota = false;                   // Held against over-quota work of lower priority only.
  bool short_when_held = false;              // Some of those devices were busy when it was held.
  std::vector<std::pair<int, int>> devices;  // (node, devices)
};

// One replica's place: a node and the devices it uses (bit i = device i).
struct Placed {
  int node = -1;
  std::uint64_t devices = 0;
};

// The empty selector, shared by every job that gives none.
const Labels& NoLabels();

// The fields read for every job a cycle looks at (ordering, victim checks, takes
// and releases) come first and share a cache line; specs and caches follow.
struct JobState {
  int queue = -1;  // -1: the queue does not exist.
  int project = -1;
  int priority = 0;
  WorkloadClass workload_class = WorkloadClass::kTrain;
  Seconds arrival_time = 0;
  Seconds start_time = 0;
  ReplicaShape shape;
  bool alive = false;
  bool running = false;
  bool terminating = false;    // Preempted, still stopping: holds `placed`, not running.
  bool over_quota = false;     // Shown over its project's quota (quota_standing.h).
  std::vector<Placed> placed;  // Running replicas.
  std::string name;
  int replicas = 1;
  int min_replicas = 1;
  Seconds checkpoint_interval_seconds = 0;  // 0: none declared.
  bool saves_on_preemption = false;         // Stopping it loses no work.
  Seconds expected_runtime_seconds = 0;     // 0: not declared.
  // Interned ids (ShapeTable), computed on first use: caches, hence mutable.
  mutable int constraint_id = -1;
  mutable int shape_id = -1;
  mutable int group_id = -1;
  std::string uid;
  std::string queue_name;
  std::string project_name;
  TopologyRequest topology;
  // Interned (ClusterState::InternSelector): jobs asking for the same labels share one
  // copy, so equal selectors have equal pointers.
  const Labels* node_selector = &NoLabels();
  std::vector<std::string> gpu_models;
};

struct QuotaState {
  MilliGpu gpu = 0;          // The guarantee in force: within the department's quota.
  MilliGpu gpu_spec = 0;     // As given.
  MilliGpu limit = 0;        // Resolved: never below gpu; the pool's size when unset.
  MilliGpu limit_spec = -1;  // As given: -1 means the pool.
  std::int64_t weight = 1;
  MilliCpu cpu = -1;
  Bytes memory = -1;
  MilliGpu deserved = 0;  // Recomputed every cycle.
};

struct Usage {
  MilliGpu gpu = 0;
  // Terminating victims: their project's own admissions count them (quota, limit),
  // reclaim does not (they are no longer work it could take).
  MilliGpu stopping_gpu = 0;
  MilliCpu cpu = 0;
  Bytes memory = 0;
  MilliGpu pending_gpu = 0;
};

struct QueueState {
  Queue spec;
  std::vector<int> nodes;  // The pool.
  MilliGpu capacity = 0;   // Schedulable GPU milli of the pool, unmanaged use excluded.
  MilliGpu free = 0;       // Of that capacity, not used now.
  bool removed = false;    // Deleted: no nodes, no jobs; kept so slot numbers stay.
};

struct ProjectState {
  std::string name;
  int priority = 0;
  std::vector<ProjectQuota> quotas;  // As given; applied to queues created later too.
  std::string department_name;       // As given; may name no department (yet).
  int department = -1;               // Its index when that department exists.
};

// One department in one queue: its quota as given, and its projects' use together.
struct DepartmentQuotaState {
  bool bounded = false;  // The department has an entry for this queue.
  MilliGpu gpu = 0;      // Unbounded: its projects' guarantees summed.
  MilliGpu limit = -1;   // -1: none.
  std::int64_t weight = 1;
  MilliGpu used = 0;      // Its projects' Usage::gpu, summed.
  MilliGpu stopping = 0;  // Their Usage::stopping_gpu, summed.
};

struct DepartmentState {
  Department spec;
  std::vector<int> projects;  // Members, by project index.
  bool removed = false;       // Deleted: kept so indexes stay.
};

class ClusterState;

// Pending jobs of one project and queue, best first: priority, arrival, name.
struct PendingOrder {
  const ClusterState* state;
  bool operator()(int a, int b) const;
};
// Running preemptible jobs of one project and queue, lowest priority first (then
// the latest start, then name, which are cheap to compare and unique): an index to
// find them by, not the order victims are chosen in (that is CheaperToStop,
// victim_order.h).
struct VictimOrder {
  const ClusterState* state;
  bool operator()(int a, int b) const;
};
using PendingSet = std::pmr::set<int, PendingOrder>;
using VictimSet = std::pmr::set<int, VictimOrder>;

class ClusterState {
 public:
  ClusterState(const Snapshot& snapshot, Options options);

  // Tens of thousands of small nodes (ordered sets, the name index) come from one
  // pool: cheaper to allocate one by one and to free all at once. Declared first,
  // so it outlives them.
  std::pmr::unsynchronized_pool_resource node_memory;
  PendingSet NewPendingSet() { return PendingSet(PendingOrder{this}, &node_memory); }
  VictimSet NewVictimSet() { return VictimSet(VictimOrder{this}, &node_memory); }

  Seconds now = 0;
  Options options;
  std::vector<NodeState> nodes;
  std::vector<QueueState> queues;
  std::vector<ProjectState> projects;
  std::vector<JobState> jobs;
  std::unordered_map<std::string, int> node_index;
  std::unordered_map<std::string, int> queue_index;
  std::unordered_map<std::string, int> project_index;
  NameIndex<JobState> job_index{&jobs};
  std::vector<DepartmentState> departments;
  std::unordered_map<std::string, int> department_index;
  // Indexed by DepartmentSlot(queue, department).
  std::vector<DepartmentQuotaState> department_quotas;
  std::size_t DepartmentSlot(int queue, int department) const {
    return static_cast<std::size_t>(queue) * departments.size() +
           static_cast<std::size_t>(department);
  }
  // The department slot of a project in a queue, or nullptr without a department.
  DepartmentQuotaState* DepartmentQuotaOf(int queue, int project) {
    int d = projects[project].department;
    return d < 0 ? nullptr : &department_quotas[DepartmentSlot(queue, d)];
  }
  const DepartmentQuotaState* DepartmentQuotaOf(int queue, int project) const {
    int d = projects[project].department;
    return d < 0 ? nullptr : &department_quotas[DepartmentSlot(queue, d)];
  }
  // The project's department uses more than its quota in the queue, less `taken`.
  bool DepartmentOverQuota(int queue, int project, MilliGpu taken = 0) const {
    const DepartmentQuotaState* department = DepartmentQuotaOf(queue, project);
    return department && department->used - taken > department->gpu;
  }

  // Indexed by Slot(queue, project).
  std::vector<QuotaState> quotas;
  std::vector<Usage> usage;
  std::vector<PendingSet> pending;
  std::vector<VictimSet> victims;
  std::vector<int> invalid_pending;  // Pending jobs whose queue does not exist.
  ShapeTable shapes;
  // Nodes a job of one constraint id may use (labels, models and sizes do not
  // change): computed on first use, kept for later cycles.
  struct EligibleSet {
    JobState probe;  // The constraint's fields: to test nodes that change later.
    std::vector<int> nodes;
    std::vector<char> member;  // By node index.
  };
  std::vector<std::unique_ptr<EligibleSet>> eligible;

  std::size_t Slot(int queue, int project) const {
    return static_cast<std::size_t>(queue) * projects.size() + static_cast<std::size_t>(project);
  }
  MilliGpu JobGpu(const JobState& job, int replicas) const {
    return job.shape.gpu_milli * replicas;
  }

  // The state's one copy of a node selector (NoLabels() when empty), kept while the
  // state lives: tens of thousands of jobs ask for a few distinct ones.
  const Labels* InternSelector(const Labels& selector);

  // `project`: the job's project index if known, else -1 (found or created).
  int AddPending(const PendingJob& job, int project = -1);
  int AddRunning(const RunningJob& job, int project = -1);
  // Pending -> running on `placed`, started now (resources taken).
  void Admit(int job, std::vector<Placed> placed);
  void Requeue(int job);  // Running -> pending; resources released.
  void Remove(int job);   // Gone entirely; resources released if running.

  // Nodes by whole devices available (free and not reserved), for best-fit search,
  // and nodes with a device partly used (fractions go there first). Brought up to
  // date when read: tentative placements that are undone cost nothing.
  const std::vector<NodeSet>& ByAvailable() {
    Flush();
    return by_available_;
  }
  const NodeSet& SharedNodes() {
    Flush();
    return shared_nodes_;
  }
  int Available(int node) const {
    return std::max(0, nodes[node].full_free - nodes[node].reserved_full);
  }
  // Devices the engine may ever use on the node: all but the unmanaged whole ones.
  static int UsableDevices(const NodeState& node) {
    return std::max(0, static_cast<int>(node.used.size()) - node.unmanaged_gpus);
  }
  // Milli-GPUs free on the node now, unmanaged whole devices excluded.
  static MilliGpu FreeMilli(const NodeState& node);
  void SetReserved(int node, int reserved);
  void Reindex(int node);

  // Low-level resource bookkeeping for tentative placements.
  void Take(const JobState& job, const Placed& placed);
  void Release(const JobState& job, const Placed& placed);

  // Per topology key: each node's domain number (-1 without the label), the domain
  // names by number, and each domain's place in the order of the names. Labels do not
  // change, so this is computed once per key.
  struct Domains {
    std::vector<int> of_node;
    std::vector<std::string> names;
    std::vector<int> name_rank;
  };
  const Domains& DomainsFor(const std::string& key);

  // What changed since the last cycle, for incremental cycles (kept only once
  // EnableTracking() was called): jobs that became pending (new or requeued), nodes
  // where running work ended, and slots whose usage dropped.
  struct Changes {
    std::vector<int> fresh;
    std::vector<int> released_nodes;
    std::vector<std::size_t> dropped_slots;
    // Nodes where work became reclaimable (its project's quota was lowered).
    std::vector<int> reclaimable_nodes;
    bool structure = false;  // Something an incremental cycle cannot follow.
  };
  Changes changes;
  // Pending jobs by slot and group (key: slot << 32 | ShapeTable group id), best
  // first; a later job of a group cannot start where an earlier one cannot. Kept
  // while tracking.
  std::unordered_map<std::uint64_t, PendingSet> waiting_groups;
  PendingSet& GroupSet(const JobState& job) {
    return waiting_groups.try_emplace(GroupOf(job), PendingOrder{this}, &node_memory).first->second;
  }
  std::uint64_t GroupOf(const JobState& job) {
    return static_cast<std::uint64_t>(Slot(job.queue, job.project)) << 32 |
           static_cast<std::uint32_t>(shapes.GroupOf(job));
  }
  // Running jobs per node (each job once per replica there). Kept while tracking.
  std::vector<std::vector<int>> jobs_on_node;
  // When a running preemptible job passes its queue's minimum runtime, it may be
  // preempted: a change an incremental cycle cannot see. Earliest first.
  std::set<std::pair<Seconds, int>> victim_horizon;
  // Set by each cycle: the room held for each waiting job. Incremental cycles honour
  // it and hold room for waiting jobs whose project holds none in their queue.
  std::vector<HeldRoom> held_rooms;
  // Its nodes no longer count on the room, nor hold devices for it.
  void Unhold(const HeldRoom& room);
  // Lets go of the rooms held for the job, or on the node (before it goes).
  void DropRoomsOf(int job);
  void DropRoomsOn(int node);
  void EnableTracking();
  bool tracking() const { return tracking_; }

  // Following a live cluster (live_nodes.cpp, live_specs.cpp, live_jobs.cpp). Each
  // change records what an incremental cycle must look at again, or, where it
  // cannot follow, asks for a full cycle (changes.structure).
  void UpsertNode(const Node& spec);
  bool RemoveNode(const std::string& name);
  void UpsertQueue(const Queue& spec);
  bool RemoveQueue(const std::string& name);
  void UpsertProject(const Project& spec);
  bool RemoveProject(const std::string& name);
  // Departments (departments.cpp): any change asks for a full cycle.
  void UpsertDepartment(const Department& spec);
  bool RemoveDepartment(const std::string& name);
  // Members, department quotas per queue, their projects' guarantees scaled into
  // them and their use summed: after any change to departments, projects or queues.
  void ApplyDepartments();
  // A pending job's new spec (or a new job); false if the job runs or is stopping.
  bool UpsertPending(const PendingJob& spec);
  // A job of this name and another uid is replaced: it is a new job.
  int AddPendingReplacing(const PendingJob& spec);
  bool RequeueRunning(const std::string& name);  // Running -> pending, devices freed.
  bool VictimGone(const std::string& name);      // Stopping -> pending.
  // Whether a job is held exactly as the spec says (held_jobs.cpp).
  bool HoldsExactly(const RunningJob& spec) const;
  bool HoldsExactly(const PendingJob& spec) const;
  bool RemoveJob(const std::string& name);  // Deleted, whatever its state.
  // Running -> terminating. A victim keeps its devices, and counts against its
  // project's own admissions, until it is gone (VictimGone); its beneficiary is
  // placed on those devices, which then count twice, so nobody else can take them.
  void Preempt(int job);
  std::size_t terminating_count = 0;
  // Slots with a job that waited on its limit: a larger pool may let it start.
  std::vector<std::size_t> limited_slots;

  std::size_t running_count = 0;
  std::size_t pending_count = 0;
  // A running job was added without its standing (RunningJob::over_quota unset): the
  // next cycle marks every standing before it starts.
  bool standing_unknown = false;
  // Slots whose standing must be marked again (quota_standing.h): their running work
  // or their quota changed since the last marking. Every slot when `all`.
  struct StandingChanges {
    std::vector<std::size_t> slots;
    bool all = true;
  };
  StandingChanges standing_changes;
  void StandingChanged(std::size_t slot) { standing_changes.slots.push_back(slot); }
  std::vector<MilliGpu> over_gpu;  // Per slot: GPUs of its jobs shown over quota.
  Snapshot ToSnapshot() const;
  std::size_t JobMemoryBytes() const;

 private:
  int NewJob(std::string_view name);
  // A new job with the fields pending and running jobs share; -1 if the name is taken.
  template <typename Spec>
  int NewJobFrom(const Spec& spec, int project);
  int ProjectFor(const std::string& name);
  void Account(const JobState& job, int sign);
  void IndexPending(int job, bool insert);
  void IndexRunning(int job, bool insert);
  void Start(int job, std::vector<Placed> placed, Seconds start_time);
  void LoadNodes(const Snapshot& snapshot);
  void SetQuotas(int project);
  void ResolveLimits();
  void RequeueHeld(int job);  // A stopping victim is gone.
  void StartHeld(int job, std::vector<Placed> placed);
  void ReleaseHeld(const JobState& job);
  int NewNode(const std::string& name);
  void DetachNode(int node);
  void AttachNode(int node);
  void RefreshNodeCaches(int node);
  std::vector<int> JobsOnNode(int node) const;
  void SetQueuePool(int queue);
  void RebindJobs(const std::string& queue_name);
  void DropQueueFromJobs(int queue);
  void Rebind(int job, int queue);
  std::vector<int> free_nodes_;
  static void SetDevices(NodeState& state, const Node& node);
  void LoadQueues(const Snapshot& snapshot);
  // Returns the project index of each job: running jobs first, then pending ones.
  std::vector<int> LoadProjects(const Snapshot& snapshot);
  void ExportProjects(Snapshot& snapshot) const;
  void LoadDepartments(const Snapshot& snapshot);
  void ScaleGuarantees(int queue, int department);
  void ExportJobs(Snapshot& snapshot) const;
  std::vector<int> free_jobs_;
  std::set<Labels> selectors_;  // InternSelector's copies.
  std::unordered_map<std::string, Domains> domains_;
  bool indexing_ = true;  // Node indexes kept up to date on every change.
  bool loading_ = false;  // Building from a snapshot: ordered sets filled at the end.
  std::vector<std::vector<int>> loaded_pending_, loaded_victims_;  // By slot, while loading.
  void FillOrderedSets();
  int NodeNamed(const std::string& name);
  int QueueNamed(const std::string& name);
  int last_queue_ = -1;
  std::string last_node_name_;
  int last_node_ = -1;
  bool tracking_ = false;
  void Track(int job, bool running, bool insert);
  void NoteRelease(const JobState& job);
  void BuildNodeIndexes();
  void Flush();
  std::vector<NodeSet> by_available_;
  NodeSet shared_nodes_;
  std::vector<int> stale_nodes_;
};

std::vector<ReplicaPlacement> ExportReplicas(const ClusterState& state, const JobState& job);
// Milli-GPUs free on one device, and on a node less its unmanaged whole devices
// (negative only if unmanaged pods hold more than is free): what it adds to the free
// GPUs of its pools. A device a terminating victim shares with its beneficiary may
// count above one GPU: it has nothing free, and takes nothing from the other
// devices' room.
inline MilliGpu DeviceFree(std::int32_t used) { return std::max<MilliGpu>(0, kMilliPerGpu - used); }
inline MilliGpu NodeFree(const NodeState& node) {
  MilliGpu free = 0;
  for (std::int32_t used : node.used) free += DeviceFree(used);
  return free - node.unmanaged_gpus * kMilliPerGpu;
}
inline MilliGpu ClusterState::FreeMilli(const NodeState& node) {
  return std::max<MilliGpu>(0, NodeFree(node));
}
// Whole devices one replica occupies: a fraction takes one device.
inline std::int32_t DevicesPerReplica(const JobState& job) {
  const MilliGpu g = job.shape.gpu_milli;
  return static_cast<std::int32_t>(g >= kMilliPerGpu ? g / kMilliPerGpu : (g > 0 ? 1 : 0));
}
bool LabelsMatch(const Labels& selector, const Labels& labels);
int DeviceCount(std::uint64_t devices);

}  // namespace gpupool::engine::internal
