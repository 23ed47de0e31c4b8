// Departments: the level above projects. Each holds, per queue, a quota its
// projects' guarantees must fit in, a limit on what they use together, and a weight
// for idle capacity across departments. Changes are rare: the next cycle is a full one.
#include <algorithm>

#include "state.h"

namespace gpupool::engine::internal {
namespace {

__extension__ using Wide = __int128;  // Products of two milli-GPU amounts.

}  // namespace

void ClusterState::LoadDepartments(const Snapshot& snapshot) {
  for (const Department& department : snapshot.departments) {
    if (department_index.count(department.name)) continue;
    department_index.emplace(department.name, static_cast<int>(departments.size()));
    departments.push_back({department, {}, false});
  }
}

void ClusterState::UpsertDepartment(const Department& spec) {
  changes.structure = true;
  auto it = department_index.find(spec.name);
  if (it != department_index.end()) {
    departments[it->second].spec = spec;
  } else {
    department_index.emplace(spec.name, static_cast<int>(departments.size()));
    departments.push_back({spec, {}, false});
  }
  ApplyDepartments();
}

// Its projects stay, each with its own quotas as given.
bool ClusterState::RemoveDepartment(const std::string& name) {
  auto it = department_index.find(name);
  if (it == department_index.end()) return false;
  changes.structure = true;
  DepartmentState& department = departments[it->second];
  department.removed = true;
  department.spec.quotas.clear();
  department_index.erase(it);
  ApplyDepartments();
  return true;
}

void ClusterState::ApplyDepartments() {
  if (departments.empty()) return;  // Guarantees stay as given: SetQuotas wrote them.
  standing_changes.all = true;      // Guarantees in force may move in any department.
  for (DepartmentState& department : departments) department.projects.clear();
  for (int p = 0; p < static_cast<int>(projects.size()); ++p) {
    ProjectState& project = projects[p];
    auto it = department_index.find(project.department_name);
    project.department =
        project.department_name.empty() || it == department_index.end() ? -1 : it->second;
    if (project.department >= 0) departments[project.department].projects.push_back(p);
  }
  department_quotas.assign(queues.size() * departments.size(), DepartmentQuotaState{});
  for (int q = 0; q < static_cast<int>(queues.size()); ++q) {
    for (std::size_t p = 0; p < projects.size(); ++p) {
      QuotaState& quota = quotas[Slot(q, static_cast<int>(p))];
      quota.gpu = quota.gpu_spec;
    }
    if (queues[q].removed) continue;
    for (int d = 0; d < static_cast<int>(departments.size()); ++d) {
      DepartmentQuotaState& state = department_quotas[DepartmentSlot(q, d)];
      for (const DepartmentQuota& quota : departments[d].spec.quotas) {
        if (quota.queue != queues[q].spec.name) continue;  // The last one wins.
        state.bounded = true;
        state.gpu = std::max<MilliGpu>(0, quota.gpu);
        state.limit = quota.limit < 0 ? -1 : std::max(state.gpu, quota.limit);
        state.weight = std::max<std::int64_t>(0, quota.over_quota_weight);
      }
      ScaleGuarantees(q, d);
      for (int p : departments[d].projects) {
        const Usage& use = usage[Slot(q, p)];
        state.used += use.gpu;
        state.stopping += use.stopping_gpu;
      }
    }
  }
}

// Projects whose guarantees together exceed their department's quota each get the
// same fraction of theirs (rounded down to a milli-GPU), so that they fit.
void ClusterState::ScaleGuarantees(int q, int d) {
  DepartmentQuotaState& department = department_quotas[DepartmentSlot(q, d)];
  MilliGpu asked = 0;
  for (int p : departments[d].projects) asked += quotas[Slot(q, p)].gpu_spec;
  if (!department.bounded) {
    department.gpu = asked;
    return;
  }
  if (asked <= department.gpu) return;
  for (int p : departments[d].projects) {
    QuotaState& quota = quotas[Slot(q, p)];
    quota.gpu = static_cast<MilliGpu>(static_cast<Wide>(quota.gpu_spec) * department.gpu / asked);
  }
}

}  // namespace gpupool::engine::internal
