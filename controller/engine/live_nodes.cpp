// Nodes of a live cluster: added, changed (labels, devices, unmanaged use,
// cordoned) and removed in place. Pools, capacity, limits, the node indexes and
// the eligible sets follow; room that may have appeared is recorded for the next
// incremental cycle.
#include <algorithm>

#include "placement.h"
#include "state.h"

namespace gpupool::engine::internal {

void ClusterState::UpsertNode(const Node& spec) {
  auto it = node_index.find(spec.name);
  int n = it == node_index.end() ? NewNode(spec.name) : it->second;
  DetachNode(n);
  NodeState& node = nodes[n];
  // Our jobs' use survives a change of devices or allocatable resources.
  std::vector<std::int32_t> ours(node.used.size());
  for (std::size_t d = 0; d < ours.size(); ++d) {
    ours[d] = node.used[d] - (node.unmanaged_milli.empty() ? 0 : node.unmanaged_milli[d]);
  }
  MilliCpu cpu_used = node.cpu_total - node.cpu_free;
  Bytes memory_used = node.memory_total - node.memory_free;
  SetDevices(node, spec);
  for (std::size_t d = 0; d < ours.size() && d < node.used.size(); ++d) node.used[d] += ours[d];
  node.full_free =
      static_cast<int>(std::count(node.used.begin(), node.used.end(), 0)) - node.unmanaged_gpus;
  node.labels = spec.labels;
  node.model = spec.gpu_model;
  node.schedulable = spec.schedulable;
  node.cpu_total = spec.cpu_milli;
  node.cpu_free = spec.cpu_milli - cpu_used;
  node.memory_total = spec.memory_bytes;
  node.memory_free = spec.memory_bytes - memory_used;
  AttachNode(n);
  ResolveLimits();
  RefreshNodeCaches(n);
  // Whatever changed, room may have appeared: jobs that could use it are looked at.
  if (tracking_ && node.schedulable) changes.released_nodes.push_back(n);
}

bool ClusterState::RemoveNode(const std::string& name) {
  auto it = node_index.find(name);
  if (it == node_index.end()) return false;
  int n = it->second;
  // Work on a deleted node is gone with it: its jobs wait again, in their place.
  for (int j : JobsOnNode(n)) {
    if (jobs[j].terminating) {
      RequeueHeld(j);
    } else {
      Requeue(j);
    }
  }
  // Room held there was counted on by waiting jobs: they hold room anew when next
  // looked at.
  DropRoomsOn(n);
  DetachNode(n);
  node_index.erase(it);
  Flush();
  by_available_[nodes[n].indexed_available].Erase(n);
  shared_nodes_.Erase(n);
  nodes[n] = NodeState{};
  nodes[n].removed = true;
  nodes[n].schedulable = false;
  by_available_[0].Insert(n);
  ResolveLimits();
  RefreshNodeCaches(n);
  free_nodes_.push_back(n);
  return true;
}

// A node index: one a removed node left, or a new one every per-node table grows to.
int ClusterState::NewNode(const std::string& name) {
  int n;
  if (!free_nodes_.empty()) {
    n = free_nodes_.back();
    free_nodes_.pop_back();
    nodes[n] = NodeState{};  // In bucket 0 of the best-fit index, as a removed node is.
  } else {
    n = static_cast<int>(nodes.size());
    nodes.emplace_back();
    for (NodeSet& bucket : by_available_) bucket.Grow(nodes.size());
    shared_nodes_.Grow(nodes.size());
    by_available_[0].Insert(n);
    if (tracking_) jobs_on_node.resize(nodes.size());
    for (auto& set : eligible) {
      if (set) set->member.resize(nodes.size(), 0);
    }
  }
  nodes[n].name = name;
  node_index.emplace(name, n);
  return n;
}

// The node leaves its pools (capacity and free GPUs with it).
void ClusterState::DetachNode(int n) {
  NodeState& node = nodes[n];
  for (int q : node.queues) {
    QueueState& queue = queues[q];
    std::erase(queue.nodes, n);
    if (!node.schedulable) continue;
    queue.capacity -= node.capacity;
    queue.free -= NodeFree(node);
  }
  node.queues.clear();
}

// The node joins every pool whose selector its labels match.
void ClusterState::AttachNode(int n) {
  NodeState& node = nodes[n];
  for (int q = 0; q < static_cast<int>(queues.size()); ++q) {
    QueueState& queue = queues[q];
    if (queue.removed || !LabelsMatch(queue.spec.node_selector, node.labels)) continue;
    queue.nodes.insert(std::lower_bound(queue.nodes.begin(), queue.nodes.end(), n), n);
    node.queues.push_back(q);
    if (!node.schedulable) continue;
    queue.capacity += node.capacity;
    queue.free += NodeFree(node);
  }
}

// Limits left to the pool's size follow it. A larger limit may let a job start that
// waited on it.
void ClusterState::ResolveLimits() {
  std::vector<char> grown(quotas.size(), 0);
  for (std::size_t q = 0; q < queues.size(); ++q) {
    for (std::size_t p = 0; p < projects.size(); ++p) {
      std::size_t slot = Slot(static_cast<int>(q), static_cast<int>(p));
      QuotaState& quota = quotas[slot];
      if (quota.limit_spec >= 0) continue;
      MilliGpu limit = std::max(quota.gpu_spec, queues[q].capacity);  // As SetQuotas.
      grown[slot] = limit > quota.limit ? 1 : 0;
      quota.limit = limit;
    }
  }
  if (!tracking_) return;
  for (std::size_t slot : limited_slots) {
    if (slot < grown.size() && grown[slot]) changes.dropped_slots.push_back(slot);
  }
}

// Eligible sets, topology domains and the best-fit index after the node changed.
void ClusterState::RefreshNodeCaches(int n) {
  for (auto& set : eligible) {
    if (!set) continue;
    bool member = NodeEligible(*this, set->probe, n);
    if (static_cast<bool>(set->member[n]) == member) continue;
    set->member[n] = member ? 1 : 0;
    auto at = std::lower_bound(set->nodes.begin(), set->nodes.end(), n);
    if (member) {
      set->nodes.insert(at, n);
    } else {
      set->nodes.erase(at);
    }
  }
  domains_.clear();  // Recomputed on first use.
  Reindex(n);
}

// Running jobs come from the per-node lists while tracking; terminating ones (few,
// and not in those lists) from a scan.
std::vector<int> ClusterState::JobsOnNode(int n) const {
  std::vector<int> out;
  if (tracking_ && terminating_count == 0) {
    out = jobs_on_node[n];
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  for (int j = 0; j < static_cast<int>(jobs.size()); ++j) {
    const JobState& job = jobs[j];
    if (!job.alive || (!job.running && !job.terminating)) continue;
    if (std::any_of(job.placed.begin(), job.placed.end(),
                    [n](const Placed& p) { return p.node == n; })) {
      out.push_back(j);
    }
  }
  return out;
}

}  // namespace gpupool::engine::internal
