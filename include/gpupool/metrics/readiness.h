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
};

// "" when ready, else why not, on one line.
std::string NotReadyReason(const ReadinessState& state);

}  // namespace gpupool::metrics
