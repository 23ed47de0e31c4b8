// What departments add to a cycle: the order idle GPUs are lent in, the limit on
// what a department's projects borrow together, which work reclaim takes first,
// and the per-department accounting of the decisions.
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

MilliGpu Cycle::DepartmentLimitRoom(const JobState& job) const {
  const DepartmentQuotaState* department = state_.DepartmentQuotaOf(job.queue, job.project);
  if (!department || department->limit < 0) return std::numeric_limits<MilliGpu>::max();
  return department->limit - department->used - department->stopping;
}

bool Cycle::DepartmentOverQuota(int queue, int project, MilliGpu taken) const {
  const DepartmentQuotaState* department = state_.DepartmentQuotaOf(queue, project);
  return department && department->used - taken > department->gpu;
}

// Victims not of a department over its quota: reclaim spares them while
// departments over their quota have work to give back.
std::size_t Cycle::VictimsOutsideDepartmentsOverQuota(const std::vector<int>& victims) const {
  if (state_.departments.empty()) return 0;
  std::vector<MilliGpu> taken(state_.departments.size(), 0);
  std::size_t outside = 0;
  for (int v : victims) {
    const JobState& victim = state_.jobs[v];
    int d = state_.projects[victim.project].department;
    if (d < 0 || !DepartmentOverQuota(victim.queue, victim.project, taken[d])) ++outside;
    if (d >= 0) taken[d] += state_.JobGpu(victim, static_cast<int>(victim.placed.size()));
  }
  return outside;
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
