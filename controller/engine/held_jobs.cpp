// Comparing a job of a snapshot with the engine's own record of it, field by field
// and device by device, without exporting anything: how LiveEngine tells what
// changed.
#include <tuple>

#include "state.h"

namespace gpupool::engine::internal {
namespace {

auto ShapeFields(const ReplicaShape& s) {
  return std::tie(s.gpu_milli, s.cpu_milli, s.memory_bytes);
}

}  // namespace

bool ClusterState::HoldsExactly(const RunningJob& spec) const {
  const int index = job_index.Find(spec.name);
  if (index < 0) return false;
  const JobState& job = jobs[index];
  const bool holds = spec.terminating ? job.terminating : job.running;
  if (!job.alive || !holds || job.placed.size() != spec.replicas.size()) return false;
  if (std::tie(job.uid, job.queue_name, job.project_name, job.workload_class, job.priority,
               job.start_time, job.arrival_time, job.min_replicas, job.replicas,
               job.checkpoint_interval_seconds, job.saves_on_preemption,
               job.expected_runtime_seconds) !=
          std::tie(spec.uid, spec.queue, spec.project, spec.workload_class, spec.priority,
                   spec.start_time, spec.arrival_time, spec.min_replicas, spec.max_replicas,
                   spec.checkpoint_interval_seconds, spec.saves_on_preemption,
                   spec.expected_runtime_seconds) ||
      ShapeFields(job.shape) != ShapeFields(spec.shape))
    return false;
  for (std::size_t r = 0; r < job.placed.size(); ++r) {
    const ReplicaPlacement& replica = spec.replicas[r];
    auto node = node_index.find(replica.node);
    if (node == node_index.end() || node->second != job.placed[r].node) return false;
    std::uint64_t devices = 0;
    for (int device : replica.devices) {
      if (device < 0 || device >= 64) return false;
      devices |= std::uint64_t{1} << device;
    }
    if (devices != job.placed[r].devices) return false;
  }
  return true;
}

bool ClusterState::HoldsExactly(const PendingJob& spec) const {
  const int index = job_index.Find(spec.name);
  if (index < 0) return false;
  const JobState& job = jobs[index];
  if (!job.alive || job.running || job.terminating) return false;
  return std::tie(job.uid, job.queue_name, job.project_name, job.workload_class, job.priority,
                  job.replicas, job.min_replicas, job.topology.mode, job.topology.key,
                  *job.node_selector, job.gpu_models, job.arrival_time,
                  job.checkpoint_interval_seconds, job.saves_on_preemption,
                  job.expected_runtime_seconds) ==
             std::tie(spec.uid, spec.queue, spec.project, spec.workload_class, spec.priority,
                      spec.replicas, spec.min_replicas, spec.topology.mode, spec.topology.key,
                      spec.node_selector, spec.gpu_models, spec.arrival_time,
                      spec.checkpoint_interval_seconds, spec.saves_on_preemption,
                      spec.expected_runtime_seconds) &&
         ShapeFields(job.shape) == ShapeFields(spec.shape);
}

}  // namespace gpupool::engine::internal
