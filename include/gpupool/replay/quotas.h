// The Philly quota rule. A tenant's quota is its share of the cluster in
// proportion to its average demand: the GPUs its jobs would hold on average
// if every job started on arrival (unlimited capacity), i.e. the sum of
// num_gpus x duration over the arrival span (first to last arrival). Quotas
// are whole GPUs: every tenant gets 1, the rest of the cluster is split in
// proportion to demand by largest remainder, so quotas sum to the cluster size.
#pragma once

#include <string>
#include <vector>

#include "gpupool/replay/traces.h"

namespace gpupool::replay {

struct TenantQuota {
  std::string tenant;
  double average_demand = 0;  // GPUs, time-averaged over the arrival span
  int quota = 0;              // whole GPUs
  size_t jobs = 0;
};

// Tenants in order of decreasing demand (then name). Throws std::invalid_argument
// when the cluster has fewer GPUs than tenants.
std::vector<TenantQuota> ProportionalQuotas(const std::vector<PhillyJob>& jobs, int cluster_gpus);

}  // namespace gpupool::replay
