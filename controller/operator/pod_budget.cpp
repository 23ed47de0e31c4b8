// A cycle's budget of gated pod creates: a waiting job's pods are a courtesy
// (they show in `kubectl get pods`, and a release is one patch instead of a
// create), so that a job of thousands of replicas cannot hold a cycle, and
// every other job's decision, for the minutes its pods take at the client's
// rate limit.
#include <algorithm>

#include "gpupool/operator/plan.h"

namespace gpupool::op {
std::size_t DeferGatedPodCreates(Plan& plan, std::size_t per_cycle) {
  if (per_cycle == 0) return 0;
  std::size_t gated = 0;
  const auto dropped =
      std::remove_if(plan.pod_creates.begin(), plan.pod_creates.end(),
                     [&](const PodCreate& create) { return create.gated && ++gated > per_cycle; });
  const auto count = static_cast<std::size_t>(plan.pod_creates.end() - dropped);
  plan.pod_creates.erase(dropped, plan.pod_creates.end());
  return count;
}

}  // namespace gpupool::op
