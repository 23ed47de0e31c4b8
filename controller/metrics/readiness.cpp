#include "gpupool/metrics/readiness.h"

namespace gpupool::metrics {

std::string NotReadyReason(const ReadinessState& state) {
  if (!state.caches_synced) return "informer caches have not synced yet";
  if (!state.leader_election || state.leading) return "";
  if (state.lease_holder.empty()) return "standby has not read the leader Lease yet";
  if (state.lease_holder == state.identity)
    return "the Lease names this replica but it could not renew it in time";
  return "";
}

std::string ReadyDetail(const ReadinessState& state) {
  if (state.gpu_metrics_problem.empty()) return "";
  return "gpu utilization unavailable: " + state.gpu_metrics_problem +
         "; idle policies leave every job alone, scheduling continues\n";
}

}  // namespace gpupool::metrics
