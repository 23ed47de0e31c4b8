#include "gpupool/replay/quotas.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace gpupool::replay {

std::vector<TenantQuota> ProportionalQuotas(const std::vector<PhillyJob>& jobs, int cluster_gpus) {
  std::map<std::string, TenantQuota> by_name;
  double first = 0, last = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    auto& tenant = by_name[jobs[i].tenant];
    tenant.tenant = jobs[i].tenant;
    tenant.average_demand += jobs[i].gpus * jobs[i].duration;
    ++tenant.jobs;
    first = i == 0 ? jobs[i].arrival : std::min(first, jobs[i].arrival);
    last = i == 0 ? jobs[i].arrival : std::max(last, jobs[i].arrival);
  }
  const double span = std::max(1.0, last - first);
  std::vector<TenantQuota> tenants;
  double total_demand = 0;
  for (auto& [name, tenant] : by_name) {
    tenant.average_demand /= span;
    total_demand += tenant.average_demand;
    tenants.push_back(tenant);
  }
  if (cluster_gpus < static_cast<int>(tenants.size())) {
    throw std::invalid_argument("the cluster has " + std::to_string(cluster_gpus) +
                                " GPUs, fewer than the " + std::to_string(tenants.size()) +
                                " tenants that each get at least 1");
  }
  // Largest remainder over what is left after the minimum of 1 GPU each.
  const int spare = cluster_gpus - static_cast<int>(tenants.size());
  std::vector<std::pair<double, size_t>> remainders;
  int given = 0;
  for (size_t i = 0; i < tenants.size(); ++i) {
    const double exact = total_demand > 0 ? spare * tenants[i].average_demand / total_demand : 0;
    tenants[i].quota = 1 + static_cast<int>(std::floor(exact));
    given += tenants[i].quota - 1;
    remainders.emplace_back(exact - std::floor(exact), i);
  }
  std::sort(remainders.begin(), remainders.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < spare && k < remainders.size(); ++k, ++given) {
    ++tenants[remainders[k].second].quota;
  }
  std::sort(tenants.begin(), tenants.end(), [](const TenantQuota& a, const TenantQuota& b) {
    return a.average_demand != b.average_demand ? a.average_demand > b.average_demand
                                                : a.tenant < b.tenant;
  });
  return tenants;
}

}  // namespace gpupool::replay
