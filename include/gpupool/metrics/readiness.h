// When a controller replica is ready (/readyz): its informers' caches have
// synced, and it leads, or it is a healthy standby (it reads the Lease and
// sees another replica holding it).
#pragma once

#include <string>

namespace gpupool::metrics {

struct ReadinessState {
  bool caches_synced = false;
  bool leader_election = false;  // Without it the replica always leads.
  bool leading = false;
  std::string lease_holder;  // As last read from the Lease; "" when never read.
  std::string identity;      // This replica's.
  // Why GPU utilization readings are missing ("" when they are fine or not
  // configured). It never makes the replica unready: scheduling goes on.
  std::string gpu_metrics_problem;
};

// "" when ready, else why not, on one line.
std::string NotReadyReason(const ReadinessState& state);
// What /readyz adds below its first line: degraded but not unready parts.
std::string ReadyDetail(const ReadinessState& state);

}  // namespace gpupool::metrics
