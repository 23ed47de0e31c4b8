#include "gpupool/metrics/cycle_metrics.h"

#include "gpu_usage.h"
#include "gpupool/kube/cache.h"
#include "job_transitions.h"

namespace gpupool::metrics {

std::string PreemptionReasonLabel(const std::string& condition_reason) {
  namespace reason = preemption_reason;
  static const std::map<std::string, std::string> kLabels = {
      {"Reclaimed", reason::kReclaim},
      {"PreemptedByPriority", reason::kPriority},
      {"NodeLost", reason::kNodeLost},
      {"ReplicaLost", reason::kReplicaLost},
      {"ReservationLost", reason::kReservationLost},
      {"StartTimeout", reason::kStartTimeout},
      {"PlacementConflict", reason::kPlacementConflict},
      {"QueueDeleted", reason::kQueueDeleted},
      // A job whose own pod failed is restarted, not preempted.
      {"PodFailed", ""},
  };
  auto label = kLabels.find(condition_reason);
  return label == kLabels.end() ? reason::kOther : label->second;
}

CycleMetrics ComputeCycleMetrics(const op::ClusterView& view, const op::Plan& plan,
                                 const op::WriteStats& written) {
  CycleMetrics metrics;
  internal::AddGpuUsage(view, plan, metrics);
  internal::AddUtilization(view, metrics);
  internal::AddJobTransitions(view, plan, written, metrics);
  return metrics;
}

op::WriteStats AllWritten(const op::Plan& plan) {
  op::WriteStats stats;
  for (const auto* writes : plan.StatusWrites())
    for (const auto& write : *writes)
      stats.changed.emplace_back(write.kind, kube::ObjectKey(write.ns, write.name));
  stats.attempted = stats.changed.size();
  return stats;
}

}  // namespace gpupool::metrics
