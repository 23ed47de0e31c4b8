#include "state.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace gpupool::engine::internal {

bool LabelsMatch(const Labels& selector, const Labels& labels) {
  for (const auto& [key, value] : selector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}

const Labels& NoLabels() {
  static const Labels none;
  return none;
}

const Labels* ClusterState::InternSelector(const Labels& selector) {
  if (selector.empty()) return &NoLabels();
  return &*selectors_.insert(selector).first;
}

int DeviceCount(std::uint64_t devices) { return std::popcount(devices); }

bool PendingOrder::operator()(int a, int b) const {
  const JobState& x = state->jobs[a];
  const JobState& y = state->jobs[b];
  if (x.priority != y.priority) return x.priority > y.priority;
  if (x.arrival_time != y.arrival_time) return x.arrival_time < y.arrival_time;
  return x.name < y.name;
}

bool VictimOrder::operator()(int a, int b) const {
  const JobState& x = state->jobs[a];
  const JobState& y = state->jobs[b];
  if (x.priority != y.priority) return x.priority < y.priority;
  if (x.start_time != y.start_time) return x.start_time > y.start_time;  // Cheap to compare.
  return x.name < y.name;
}

ClusterState::ClusterState(const Snapshot& snapshot, Options opts)
    : now(snapshot.now), options(std::move(opts)) {
  LoadNodes(snapshot);
  LoadQueues(snapshot);
  const std::vector<int> project_of_job = LoadProjects(snapshot);
  const std::size_t running_jobs = snapshot.running.size();
  jobs.reserve(running_jobs + snapshot.pending.size());
  job_index.Reserve(running_jobs + snapshot.pending.size());
  // Node indexes and the ordered sets are built once at the end, not per job.
  indexing_ = false;
  loading_ = true;
  for (std::size_t i = 0; i < running_jobs; ++i) {
    AddRunning(snapshot.running[i], project_of_job[i]);
  }
  indexing_ = true;
  BuildNodeIndexes();
  for (std::size_t i = 0; i < snapshot.pending.size(); ++i) {
    AddPending(snapshot.pending[i], project_of_job[running_jobs + i]);
  }
  loading_ = false;
  FillOrderedSets();
}

int ClusterState::ProjectFor(const std::string& name) {
  auto it = project_index.find(name);
  if (it != project_index.end()) return it->second;
  int index = static_cast<int>(projects.size());
  project_index.emplace(name, index);
  projects.push_back({name, 0});
  // Still loading (the tables are sized afterwards) while they do not match the
  // projects there were; an engine that had no project at all has matching, empty ones.
  std::size_t old_projects = projects.size() - 1;
  if (quotas.size() != queues.size() * old_projects) return index;
  // A project first seen after loading: re-lay the per-slot tables out.
  std::vector<QuotaState> new_quotas(queues.size() * projects.size());
  std::vector<Usage> new_usage(new_quotas.size());
  std::vector<PendingSet> new_pending;
  std::vector<VictimSet> new_victims;
  for (std::size_t slot = 0; slot < new_quotas.size(); ++slot) {
    new_pending.push_back(NewPendingSet());
    new_victims.push_back(NewVictimSet());
  }
  for (std::size_t q = 0; q < queues.size(); ++q) {
    for (std::size_t p = 0; p <= old_projects; ++p) {
      std::size_t to = q * projects.size() + p;
      if (p == old_projects) {
        new_quotas[to].limit = queues[q].capacity;
        continue;
      }
      std::size_t from = q * old_projects + p;
      new_quotas[to] = quotas[from];
      new_usage[to] = usage[from];
      new_pending[to] = std::move(pending[from]);
      new_victims[to] = std::move(victims[from]);
    }
  }
  quotas = std::move(new_quotas);
  usage = std::move(new_usage);
  pending = std::move(new_pending);
  victims = std::move(new_victims);
  if (tracking_) {
    changes.structure = true;
    EnableTracking();  // Group keys hold slot numbers: lay them out again.
  }
  return index;
}

int ClusterState::NewJob(std::string_view name) {
  const std::uint32_t hash = job_index.Hash(name);
  if (job_index.Find(name, hash) >= 0) return -1;
  int index = free_jobs_.empty() ? static_cast<int>(jobs.size()) : free_jobs_.back();
  if (!free_jobs_.empty()) {
    free_jobs_.pop_back();
    jobs[index] = JobState{};
  } else {
    jobs.emplace_back();
  }
  jobs[index].name = name;
  jobs[index].alive = true;
  job_index.Insert(index, hash);
  return index;
}

template <typename Spec>
int ClusterState::NewJobFrom(const Spec& spec, int project) {
  if (project < 0) project = ProjectFor(spec.project);
  int index = NewJob(spec.name);
  if (index < 0) return -1;
  JobState& job = jobs[index];
  job.uid = spec.uid;
  job.queue_name = spec.queue;
  job.project_name = spec.project;
  job.queue = QueueNamed(spec.queue);
  job.project = project;
  job.workload_class = spec.workload_class;
  job.priority = spec.priority;
  job.arrival_time = spec.arrival_time;
  job.shape = spec.shape;
  job.min_replicas = spec.min_replicas;
  job.checkpoint_interval_seconds = spec.checkpoint_interval_seconds;
  job.saves_on_preemption = spec.saves_on_preemption;
  job.expected_runtime_seconds = spec.expected_runtime_seconds;
  return index;
}

int ClusterState::AddPending(const PendingJob& spec, int project) {
  int index = NewJobFrom(spec, project);
  if (index < 0) return -1;
  JobState& job = jobs[index];
  job.replicas = spec.replicas;
  job.topology = spec.topology;
  job.node_selector = InternSelector(spec.node_selector);
  job.gpu_models = spec.gpu_models;
  IndexPending(index, true);
  return index;
}

int ClusterState::AddRunning(const RunningJob& spec, int project) {
  int index = NewJobFrom(spec, project);
  if (index < 0) return -1;
  JobState& job = jobs[index];
  job.start_time = spec.start_time;
  job.replicas = std::max<int>(spec.max_replicas, static_cast<int>(spec.replicas.size()));
  std::vector<Placed> placed;
  placed.reserve(spec.replicas.size());
  for (const ReplicaPlacement& replica : spec.replicas) {
    Placed p;
    p.node = NodeNamed(replica.node);
    for (int d : replica.devices) {
      if (p.node >= 0 && d >= 0 && d < static_cast<int>(nodes[p.node].used.size())) {
        p.devices |= std::uint64_t{1} << d;
      }
    }
    placed.push_back(p);
  }
  job.start_time = spec.start_time;
  job.over_quota = spec.over_quota.value_or(false);
  if (!spec.over_quota) standing_unknown = true;
  if (spec.terminating) {
    StartHeld(index, std::move(placed));
  } else {
    Start(index, std::move(placed), spec.start_time);
  }
  return index;
}

// Most jobs of a snapshot name the same few queues, often one after another.
int ClusterState::QueueNamed(const std::string& name) {
  if (last_queue_ >= 0 && name == queues[last_queue_].spec.name) return last_queue_;
  auto it = queue_index.find(name);
  if (it == queue_index.end()) return -1;
  return last_queue_ = it->second;
}

// Replicas of one node usually come one after another in a snapshot: the last
// answer is kept.
int ClusterState::NodeNamed(const std::string& name) {
  if (loading_ && last_node_ >= 0 && name == last_node_name_) return last_node_;
  auto it = node_index.find(name);
  last_node_name_ = name;
  last_node_ = it == node_index.end() ? -1 : it->second;
  return last_node_;
}

const ClusterState::Domains& ClusterState::DomainsFor(const std::string& key) {
  auto it = domains_.find(key);
  if (it != domains_.end()) return it->second;
  Domains domains;
  std::unordered_map<std::string, int> numbers;
  domains.of_node.assign(nodes.size(), -1);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    auto label = nodes[n].labels.find(key);
    if (label == nodes[n].labels.end()) continue;
    auto [entry, added] = numbers.emplace(label->second, static_cast<int>(domains.names.size()));
    if (added) domains.names.push_back(label->second);
    domains.of_node[n] = entry->second;
  }
  std::vector<int> by_name(domains.names.size());
  for (std::size_t d = 0; d < by_name.size(); ++d) by_name[d] = static_cast<int>(d);
  std::sort(by_name.begin(), by_name.end(),
            [&](int a, int b) { return domains.names[a] < domains.names[b]; });
  domains.name_rank.resize(by_name.size());
  for (std::size_t r = 0; r < by_name.size(); ++r)
    domains.name_rank[by_name[r]] = static_cast<int>(r);
  return domains_.emplace(key, std::move(domains)).first->second;
}

void ClusterState::Unhold(const HeldRoom& room) {
  for (auto [n, devices] : room.devices) {
    NodeState& node = nodes[n];
    if (room.over_quota) {
      node.over_target -= devices;
      node.reserved_over = std::min(node.reserved_over, node.over_target);
    } else {
      node.reserve_target -= devices;
      if (node.reserved_full > node.reserve_target) SetReserved(n, node.reserve_target);
    }
  }
}

void ClusterState::DropRoomsOf(int job) {
  std::erase_if(held_rooms, [&](const HeldRoom& room) {
    if (room.job != job) return false;
    Unhold(room);
    return true;
  });
}

void ClusterState::DropRoomsOn(int node) {
  std::erase_if(held_rooms, [&](const HeldRoom& room) {
    bool on = std::any_of(room.devices.begin(), room.devices.end(),
                          [node](std::pair<int, int> held) { return held.first == node; });
    if (!on) return false;
    Unhold(room);
    if (tracking_) changes.fresh.push_back(room.job);  // To hold room elsewhere.
    return true;
  });
}

void ClusterState::SetReserved(int n, int reserved) {
  nodes[n].reserved_full = reserved;
  Reindex(n);
}

void ClusterState::Reindex(int n) {
  if (!indexing_ || nodes[n].stale) return;
  nodes[n].stale = true;
  stale_nodes_.push_back(n);
}

void ClusterState::Flush() {
  for (int n : stale_nodes_) {
    NodeState& node = nodes[n];
    node.stale = false;
    if (Available(n) != node.indexed_available) {
      by_available_[node.indexed_available].Erase(n);
      node.indexed_available = Available(n);
      by_available_[node.indexed_available].Insert(n);
    }
    bool shared = std::any_of(node.used.begin(), node.used.end(),
                              [](std::int32_t u) { return u > 0 && u < kMilliPerGpu; });
    if (shared == node.shared) continue;
    node.shared = shared;
    if (shared) {
      shared_nodes_.Insert(n);
    } else {
      shared_nodes_.Erase(n);
    }
  }
  stale_nodes_.clear();
}

namespace {

// The placement's devices that exist on the node (bit i = device i).
std::uint64_t DeviceBits(const NodeState& node, const Placed& placed) {
  std::size_t count = node.used.size();
  return count >= 64 ? placed.devices : placed.devices & ((std::uint64_t{1} << count) - 1);
}

}  // namespace

void ClusterState::Take(const JobState& job, const Placed& placed) {
  if (placed.node < 0) return;
  NodeState& node = nodes[placed.node];
  MilliGpu per_device = job.shape.gpu_milli < kMilliPerGpu ? job.shape.gpu_milli : kMilliPerGpu;
  MilliGpu taken = 0;
  for (std::uint64_t bits = DeviceBits(node, placed); bits != 0; bits &= bits - 1) {
    int d = std::countr_zero(bits);
    if (node.used[d] == 0) --node.full_free;
    taken += DeviceFree(node.used[d]);
    node.used[d] += static_cast<std::int32_t>(per_device);
    taken -= DeviceFree(node.used[d]);
  }
  if (node.schedulable) {
    for (int q : node.queues) queues[q].free -= taken;
  }
  node.cpu_free -= job.shape.cpu_milli;
  node.memory_free -= job.shape.memory_bytes;
  Reindex(placed.node);
}

void ClusterState::Release(const JobState& job, const Placed& placed) {
  if (placed.node < 0) return;
  NodeState& node = nodes[placed.node];
  MilliGpu per_device = job.shape.gpu_milli < kMilliPerGpu ? job.shape.gpu_milli : kMilliPerGpu;
  MilliGpu released = 0;
  for (std::uint64_t bits = DeviceBits(node, placed); bits != 0; bits &= bits - 1) {
    int d = std::countr_zero(bits);
    released -= DeviceFree(node.used[d]);
    node.used[d] -= static_cast<std::int32_t>(per_device);
    if (node.used[d] == 0) ++node.full_free;
    released += DeviceFree(node.used[d]);
  }
  if (node.schedulable) {
    for (int q : node.queues) queues[q].free += released;
  }
  node.cpu_free += job.shape.cpu_milli;
  node.memory_free += job.shape.memory_bytes;
  Reindex(placed.node);
}

void ClusterState::Account(const JobState& job, int sign) {
  if (job.queue < 0) return;
  Usage& u = usage[Slot(job.queue, job.project)];
  auto count = static_cast<std::int64_t>(job.placed.size());
  MilliGpu gpu = sign * job.shape.gpu_milli * count;
  DepartmentQuotaState* department = DepartmentQuotaOf(job.queue, job.project);
  if (job.terminating) {
    u.stopping_gpu += gpu;
    if (department) department->stopping += gpu;
    return;
  }
  u.gpu += gpu;
  if (department) department->used += gpu;
  u.cpu += sign * job.shape.cpu_milli * count;
  u.memory += sign * job.shape.memory_bytes * count;
}

void ClusterState::IndexPending(int index, bool insert) {
  JobState& job = jobs[index];
  if (job.queue < 0) {
    if (insert) {
      invalid_pending.push_back(index);
    } else {
      std::erase(invalid_pending, index);
    }
  } else {
    std::size_t slot = Slot(job.queue, job.project);
    if (loading_) {
      loaded_pending_.resize(pending.size());
      loaded_pending_[slot].push_back(index);
      usage[slot].pending_gpu += JobGpu(job, job.replicas);
    } else if (insert) {
      pending[slot].insert(index);
      usage[slot].pending_gpu += JobGpu(job, job.replicas);
    } else {
      pending[slot].erase(index);
      usage[slot].pending_gpu -= JobGpu(job, job.replicas);
    }
  }
  if (tracking_) Track(index, false, insert);
  if (insert) {
    ++pending_count;
  } else {
    --pending_count;
  }
}

void ClusterState::IndexRunning(int index, bool insert) {
  JobState& job = jobs[index];
  if (job.queue >= 0) StandingChanged(Slot(job.queue, job.project));
  if (job.queue >= 0 && IsPreemptible(job.workload_class)) {
    std::size_t slot = Slot(job.queue, job.project);
    auto& set = victims[slot];
    if (loading_) {
      loaded_victims_.resize(victims.size());
      loaded_victims_[slot].push_back(index);
    } else if (insert) {
      set.insert(index);
    } else {
      set.erase(index);
    }
  }
  if (tracking_) Track(index, true, insert);
  if (insert) {
    ++running_count;
  } else {
    --running_count;
  }
}

void ClusterState::Start(int index, std::vector<Placed> placed, Seconds start_time) {
  JobState& job = jobs[index];
  job.placed = std::move(placed);
  job.running = true;
  job.start_time = start_time;
  for (const Placed& p : job.placed) Take(job, p);
  Account(job, +1);
  IndexRunning(index, true);
}

void ClusterState::Admit(int index, std::vector<Placed> placed) {
  IndexPending(index, false);
  Start(index, std::move(placed), now);
}

void ClusterState::Requeue(int index) {
  JobState& job = jobs[index];
  if (!job.running) return;
  NoteRelease(job);
  IndexRunning(index, false);
  Account(job, -1);
  for (const Placed& p : job.placed) Release(job, p);
  job.placed.clear();
  job.running = false;
  IndexPending(index, true);
}

void ClusterState::Remove(int index) {
  JobState& job = jobs[index];
  if (!job.alive) return;
  if (job.terminating) {
    ReleaseHeld(job);
  } else if (job.running) {
    NoteRelease(job);
    IndexRunning(index, false);
    Account(job, -1);
    for (const Placed& p : job.placed) Release(job, p);
  } else {
    IndexPending(index, false);
  }
  job_index.Erase(job.name);
  job = JobState{};
  free_jobs_.push_back(index);
}

void ClusterState::EnableTracking() {
  tracking_ = true;
  waiting_groups.clear();
  for (const PendingSet& slot : pending) {
    for (int j : slot) GroupSet(jobs[j]).insert(j);
  }
  jobs_on_node.assign(nodes.size(), {});
  victim_horizon.clear();
  for (int j = 0; j < static_cast<int>(jobs.size()); ++j) {
    if (jobs[j].running) Track(j, true, true);
  }
}

void ClusterState::Track(int index, bool running, bool insert) {
  const JobState& job = jobs[index];
  if (!running) {
    if (insert) changes.fresh.push_back(index);
    if (job.queue < 0) return;
    if (insert) {
      GroupSet(job).insert(index);
      return;
    }
    auto group = waiting_groups.find(GroupOf(job));
    if (group == waiting_groups.end()) return;
    group->second.erase(index);
    if (group->second.empty()) waiting_groups.erase(group);
    return;
  }
  for (const Placed& p : job.placed) {
    if (p.node < 0) continue;
    std::vector<int>& on_node = jobs_on_node[p.node];
    if (insert) {
      on_node.push_back(index);
    } else if (auto it = std::find(on_node.begin(), on_node.end(), index); it != on_node.end()) {
      on_node.erase(it);
    }
  }
  if (job.queue < 0 || !IsPreemptible(job.workload_class)) return;
  Seconds eligible = job.start_time + queues[job.queue].spec.min_runtime_seconds;
  if (!insert) {
    victim_horizon.erase({eligible, index});
  } else if (eligible > now) {
    victim_horizon.emplace(eligible, index);
  }
}

// Running work ends (or is preempted): its nodes have room, its project has less.
void ClusterState::NoteRelease(const JobState& job) {
  if (!tracking_) return;
  for (const Placed& p : job.placed) {
    if (p.node >= 0) changes.released_nodes.push_back(p.node);
  }
  if (job.queue < 0) return;
  changes.dropped_slots.push_back(Slot(job.queue, job.project));
  // Its department's use dropped too: its other projects may be under its limit again.
  int department = projects[job.project].department;
  if (department < 0) return;
  for (int p : departments[department].projects) {
    if (p != job.project) changes.dropped_slots.push_back(Slot(job.queue, p));
  }
}

}  // namespace gpupool::engine::internal
