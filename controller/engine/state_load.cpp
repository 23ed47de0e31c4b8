// Building the working state from a Snapshot: nodes with their devices and
// unmanaged use, queues with their pools, projects with their quotas, and the
// ordered sets filled once at the end.
#include <algorithm>

#include "state.h"

namespace gpupool::engine::internal {

// Each set is filled in its order, every insertion hinted at the end: no tree
// search. Sorting keys held side by side is far cheaper than comparing through
// the job table at every level of a tree.
void ClusterState::FillOrderedSets() {
  struct Key {
    int priority;
    Seconds time;
    int job;
  };
  std::vector<Key> keys;
  auto fill = [&](std::vector<int>& loaded, auto& set, bool victims) {
    keys.clear();
    for (int j : loaded) {
      const JobState& job = jobs[j];
      keys.push_back(victims ? Key{job.priority, -job.start_time, j}
                             : Key{-job.priority, job.arrival_time, j});
    }
    std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
      if (a.priority != b.priority) return a.priority < b.priority;
      if (a.time != b.time) return a.time < b.time;
      return jobs[a.job].name < jobs[b.job].name;
    });
    for (const Key& key : keys) set.insert(set.end(), key.job);
    loaded = {};
  };
  for (std::size_t slot = 0; slot < loaded_pending_.size(); ++slot) {
    fill(loaded_pending_[slot], pending[slot], false);
  }
  for (std::size_t slot = 0; slot < loaded_victims_.size(); ++slot) {
    fill(loaded_victims_[slot], victims[slot], true);
  }
  loaded_pending_ = {};
  loaded_victims_ = {};
}

void ClusterState::BuildNodeIndexes() {
  by_available_.assign(65, {});
  for (NodeSet& bucket : by_available_) bucket.Resize(nodes.size());
  shared_nodes_.Resize(nodes.size());
  stale_nodes_.clear();
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    NodeState& node = nodes[n];
    node.indexed_available = Available(n);
    by_available_[node.indexed_available].Insert(n);
    node.shared = false;
    node.stale = true;
    stale_nodes_.push_back(n);
  }
  Flush();
}

void ClusterState::LoadNodes(const Snapshot& snapshot) {
  nodes.reserve(snapshot.nodes.size());
  node_index.reserve(snapshot.nodes.size());
  for (const Node& node : snapshot.nodes) {
    NodeState state;
    state.name = node.name;
    state.labels = node.labels;
    state.model = node.gpu_model;
    SetDevices(state, node);
    state.cpu_free = state.cpu_total = node.cpu_milli;
    state.memory_free = state.memory_total = node.memory_bytes;
    state.schedulable = node.schedulable;
    node_index.emplace(node.name, static_cast<int>(nodes.size()));
    nodes.push_back(std::move(state));
  }
}

// The node's devices and what unmanaged pods use of them, before any job of ours.
void ClusterState::SetDevices(NodeState& state, const Node& node) {
  auto gpus = static_cast<std::size_t>(std::clamp(node.gpus, 0, 64));
  state.used.assign(gpus, 0);
  state.unmanaged_milli.clear();
  MilliGpu capacity = 0;
  for (std::size_t d = 0; d < gpus; ++d) {
    auto unmanaged = d < node.unmanaged_milli.size()
                         ? std::clamp<MilliGpu>(node.unmanaged_milli[d], 0, kMilliPerGpu)
                         : 0;
    if (unmanaged > 0 && state.unmanaged_milli.empty()) state.unmanaged_milli.assign(gpus, 0);
    if (unmanaged > 0) state.unmanaged_milli[d] = static_cast<std::int32_t>(unmanaged);
    state.used[d] = static_cast<std::int32_t>(unmanaged);
    capacity += kMilliPerGpu - unmanaged;
  }
  state.unmanaged_gpus = std::clamp(node.unmanaged_gpus, 0, static_cast<int>(gpus));
  state.capacity = std::max<MilliGpu>(0, capacity - state.unmanaged_gpus * kMilliPerGpu);
  state.full_free =
      static_cast<int>(std::count(state.used.begin(), state.used.end(), 0)) - state.unmanaged_gpus;
}

void ClusterState::LoadQueues(const Snapshot& snapshot) {
  for (const Queue& queue : snapshot.queues) {
    if (queue_index.count(queue.name)) continue;
    int index = static_cast<int>(queues.size());
    queue_index.emplace(queue.name, index);
    QueueState state;
    state.spec = queue;
    for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
      NodeState& node = nodes[n];
      if (!LabelsMatch(queue.node_selector, node.labels)) continue;
      state.nodes.push_back(n);
      node.queues.push_back(index);
      if (!node.schedulable) continue;
      state.capacity += node.capacity;
      state.free += NodeFree(node);
    }
    queues.push_back(std::move(state));
  }
}

std::vector<int> ClusterState::LoadProjects(const Snapshot& snapshot) {
  LoadDepartments(snapshot);
  for (const Project& project : snapshot.projects) {
    if (project_index.count(project.name)) continue;
    project_index.emplace(project.name, static_cast<int>(projects.size()));
    projects.push_back({project.name, project.priority, project.quotas, project.department});
  }
  // Jobs may name projects that have no object (yet): they get quota 0.
  std::vector<int> project_of_job;
  project_of_job.reserve(snapshot.running.size() + snapshot.pending.size());
  for (const RunningJob& job : snapshot.running) project_of_job.push_back(ProjectFor(job.project));
  for (const PendingJob& job : snapshot.pending) project_of_job.push_back(ProjectFor(job.project));
  std::size_t slots = queues.size() * projects.size();
  quotas.assign(slots, QuotaState{});
  usage.assign(slots, Usage{});
  pending.clear();
  victims.clear();
  for (std::size_t slot = 0; slot < slots; ++slot) {
    pending.push_back(NewPendingSet());
    victims.push_back(NewVictimSet());
  }
  for (std::size_t p = 0; p < projects.size(); ++p) SetQuotas(static_cast<int>(p));
  ApplyDepartments();
  return project_of_job;
}

// The project's quota objects applied to every queue (none: quota 0, no limit).
void ClusterState::SetQuotas(int p) {
  for (std::size_t q = 0; q < queues.size(); ++q) {
    if (queues[q].removed) continue;
    ProjectQuota spec{queues[q].spec.name};
    for (const ProjectQuota& quota : projects[p].quotas) {
      if (quota.queue == spec.queue) spec = quota;  // The last one wins.
    }
    QuotaState& state = quotas[Slot(static_cast<int>(q), p)];
    StandingChanged(Slot(static_cast<int>(q), p));
    state.gpu = state.gpu_spec = std::max<MilliGpu>(0, spec.gpu);
    state.limit_spec = spec.limit;
    state.limit =
        spec.limit < 0 ? std::max(state.gpu, queues[q].capacity) : std::max(state.gpu, spec.limit);
    state.weight = std::max<std::int64_t>(0, spec.over_quota_weight);
    state.cpu = spec.cpu_milli;
    state.memory = spec.memory_bytes;
  }
}

}  // namespace gpupool::engine::internal
