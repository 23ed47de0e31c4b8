// What departments add to a cycle: the order idle GPUs are lent in, the limit on
// what a department's projects borrow together, and the per-department accounting
// of the decisions. Which work reclaim takes first is the victim order's first
// criterion (victim_order.h).
#include <algorithm>
#include <limits>

#include "cycle.h"

namespace gpupool::engine::internal {

bool Cycle::DepartmentBelowQuota(std::size_t slot) const {
  std::size_t projects = state_.projects.size();
  const DepartmentQuotaState* department = state_.DepartmentQuotaOf(
      static_cast<int>(slot / projects), static_cast<int>(slot % projects));
  return department && department->used + department->stopping < department->gpu;
}

MilliGpu Cycle::DepartmentLimit(const JobState& job) const {
  const DepartmentQuotaState* department = state_.DepartmentQuotaOf(job.queue, job.project);
  if (!department || department->limit < 0) return std::numeric_limits<MilliGpu>::max();
  return department->limit;
}

MilliGpu Cycle::DepartmentLimitRoom(const JobState& job) const {
  const DepartmentQuotaState* department = state_.DepartmentQuotaOf(job.queue, job.project);
  if (!department || department->limit < 0) return std::numeric_limits<MilliGpu>::max();
  return department->limit - department->used - department->stopping;
}

void Cycle::RecordDepartmentShares() {
  for (int q = 0; q < static_cast<int>(state_.queues.size()); ++q) {
    if (state_.queues[q].removed) continue;
    for (int d = 0; d < static_cast<int>(state_.departments.size()); ++d) {
      const DepartmentState& department = state_.departments[d];
      if (department.removed) continue;
      const DepartmentQuotaState& quota = state_.department_quotas[state_.DepartmentSlot(q, d)];
      DepartmentShare share{department.spec.name, state_.queues[q].spec.name, quota.gpu};
      for (int p : department.projects) {
        std::size_t slot = state_.Slot(q, p);
        share.deserved += state_.quotas[slot].deserved;
        share.allocated += state_.usage[slot].gpu;
        share.pending += state_.usage[slot].pending_gpu;
      }
      if (share.quota == 0 && share.allocated == 0 && share.pending == 0) continue;
      share.over_quota = std::max<MilliGpu>(0, share.allocated - share.quota);
      decisions_.department_shares.push_back(std::move(share));
    }
  }
}

}  // namespace gpupool::engine::internal
