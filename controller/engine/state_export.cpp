// Turning the working state back into a Snapshot, and measuring what jobs cost.
#include <algorithm>

#include "state.h"

namespace gpupool::engine::internal {
namespace {

std::vector<ReplicaPlacement> ExportPlacement(const ClusterState& state, const JobState& job) {
  std::vector<ReplicaPlacement> replicas;
  replicas.reserve(job.placed.size());
  for (const Placed& placed : job.placed) {
    ReplicaPlacement replica;
    if (placed.node >= 0) replica.node = state.nodes[placed.node].name;
    for (int d = 0; d < 64; ++d) {
      if (placed.devices >> d & 1) replica.devices.push_back(d);
    }
    replicas.push_back(std::move(replica));
  }
  return replicas;
}

std::size_t StringBytes(const std::string& s) {
  return s.capacity() > 15 ? s.capacity() + 1 : 0;  // Heap beyond the small buffer.
}

std::size_t LabelBytes(const Labels& labels) {
  std::size_t bytes = 0;
  for (const auto& [key, value] : labels) {
    bytes += 48 + sizeof(std::string) * 2 + StringBytes(key) + StringBytes(value);
  }
  return bytes;
}

}  // namespace

std::vector<ReplicaPlacement> ExportReplicas(const ClusterState& state, const JobState& job) {
  return ExportPlacement(state, job);
}

Snapshot ClusterState::ToSnapshot() const {
  Snapshot snapshot;
  snapshot.now = now;
  std::vector<int> exported(nodes.size(), -1);  // Removed nodes are left out.
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const NodeState& node = nodes[n];
    if (node.removed) continue;
    exported[n] = static_cast<int>(snapshot.nodes.size());
    Node out;
    out.name = node.name;
    out.labels = node.labels;
    out.gpu_model = node.model;
    out.gpus = static_cast<int>(node.used.size());
    out.schedulable = node.schedulable;
    // Free capacity is what the snapshot carries; add back what our jobs hold.
    out.cpu_milli = node.cpu_free;
    out.memory_bytes = node.memory_free;
    out.unmanaged_milli.assign(node.unmanaged_milli.begin(), node.unmanaged_milli.end());
    out.unmanaged_gpus = node.unmanaged_gpus;
    snapshot.nodes.push_back(std::move(out));
  }
  for (const JobState& job : jobs) {
    if (!job.alive || (!job.running && !job.terminating)) continue;
    for (const Placed& placed : job.placed) {
      if (placed.node < 0 || exported[placed.node] < 0) continue;
      Node& node = snapshot.nodes[exported[placed.node]];
      node.cpu_milli += job.shape.cpu_milli;
      node.memory_bytes += job.shape.memory_bytes;
    }
  }
  for (const QueueState& queue : queues) {
    if (!queue.removed) snapshot.queues.push_back(queue.spec);
  }
  ExportProjects(snapshot);
  for (const DepartmentState& department : departments) {
    if (!department.removed) snapshot.departments.push_back(department.spec);
  }
  ExportJobs(snapshot);
  return snapshot;
}

void ClusterState::ExportProjects(Snapshot& snapshot) const {
  for (std::size_t p = 0; p < projects.size(); ++p) {
    Project project{projects[p].name, projects[p].priority, {}, projects[p].department_name};
    for (std::size_t q = 0; q < queues.size(); ++q) {
      if (queues[q].removed) continue;
      const QuotaState& quota = quotas[Slot(static_cast<int>(q), static_cast<int>(p))];
      project.quotas.push_back({queues[q].spec.name, quota.gpu_spec, quota.limit_spec, quota.weight,
                                quota.cpu, quota.memory});
    }
    snapshot.projects.push_back(std::move(project));
  }
}

void ClusterState::ExportJobs(Snapshot& snapshot) const {
  for (const JobState& job : jobs) {
    if (!job.alive) continue;
    if (job.running || job.terminating) {
      RunningJob out;
      out.name = job.name;
      out.uid = job.uid;
      out.terminating = job.terminating;
      out.over_quota = job.over_quota;
      out.queue = job.queue_name;
      out.project = job.project_name;
      out.workload_class = job.workload_class;
      out.priority = job.priority;
      out.start_time = job.start_time;
      out.arrival_time = job.arrival_time;
      out.shape = job.shape;
      out.replicas = ExportPlacement(*this, job);
      out.min_replicas = job.min_replicas;
      out.max_replicas = job.replicas;
      out.checkpoint_interval_seconds = job.checkpoint_interval_seconds;
      out.saves_on_preemption = job.saves_on_preemption;
      out.saves_on_preemption = job.saves_on_preemption;
      out.expected_runtime_seconds = job.expected_runtime_seconds;
      snapshot.running.push_back(std::move(out));
      continue;
    }
    PendingJob out;
    out.name = job.name;
    out.uid = job.uid;
    out.queue = job.queue_name;
    out.project = job.project_name;
    out.workload_class = job.workload_class;
    out.priority = job.priority;
    out.replicas = job.replicas;
    out.min_replicas = job.min_replicas;
    out.shape = job.shape;
    out.topology = job.topology;
    out.node_selector = *job.node_selector;
    out.gpu_models = job.gpu_models;
    out.arrival_time = job.arrival_time;
    out.checkpoint_interval_seconds = job.checkpoint_interval_seconds;
    out.saves_on_preemption = job.saves_on_preemption;
    out.expected_runtime_seconds = job.expected_runtime_seconds;
    snapshot.pending.push_back(std::move(out));
  }
}

std::size_t ClusterState::JobMemoryBytes() const {
  std::size_t bytes = jobs.capacity() * sizeof(JobState);
  for (const JobState& job : jobs) {
    bytes += StringBytes(job.name) + StringBytes(job.uid) + StringBytes(job.queue_name) +
             StringBytes(job.project_name) + StringBytes(job.topology.key);
    bytes += job.gpu_models.capacity() * sizeof(std::string);
    for (const std::string& model : job.gpu_models) bytes += StringBytes(model);
    bytes += job.placed.capacity() * sizeof(Placed);
  }
  // Node selectors: one copy of each distinct one (a tree node each).
  for (const Labels& selector : selectors_) bytes += 48 + LabelBytes(selector);
  bytes += job_index.memory_bytes();  // Name index: slots only, names are the jobs'.
  // Ordered pending / victim sets: one red-black node (32 bytes + the int) per entry.
  bytes += (running_count + pending_count) * 40;
  if (tracking_) {
    // Incremental cycles: each pending job once more in its group's set, a map entry
    // per group, and each running replica in its node's list.
    bytes += pending_count * 40 + waiting_groups.size() * 64;
    for (const std::vector<int>& on_node : jobs_on_node) bytes += on_node.capacity() * sizeof(int);
  }
  return bytes;
}

}  // namespace gpupool::engine::internal
