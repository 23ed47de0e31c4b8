// The department invariants, from the snapshots and decisions alone: every
// project's guarantee is within its department's quota, over-quota work never takes
// a department above its limit, and the per-department accounting adds up.
#include <algorithm>
#include <map>
#include <set>

#include "invariants.h"

namespace gpupool::engine::testing {
namespace {

using Key = std::pair<std::string, std::string>;  // project (or department), queue

__extension__ using Wide = __int128;

// Projects by the department they name, for departments that exist.
std::map<std::string, std::vector<const Project*>> Members(const Snapshot& s) {
  std::map<std::string, std::vector<const Project*>> out;
  for (const Department& d : s.departments) out[d.name];
  for (const Project& p : s.projects) {
    auto it = out.find(p.department);
    if (!p.department.empty() && it != out.end()) it->second.push_back(&p);
  }
  return out;
}

const DepartmentQuota* QuotaIn(const Department& d, const std::string& queue) {
  const DepartmentQuota* found = nullptr;
  for (const DepartmentQuota& q : d.quotas) {
    if (q.queue == queue) found = &q;
  }
  return found;
}

}  // namespace

std::map<Key, MilliGpu> Guarantees(const Snapshot& s) {
  std::map<Key, MilliGpu> out;
  for (const Project& p : s.projects) {
    for (const ProjectQuota& q : p.quotas) out[{p.name, q.queue}] = std::max<MilliGpu>(0, q.gpu);
  }
  std::map<std::string, std::vector<const Project*>> members = Members(s);
  for (const Department& d : s.departments) {
    for (const Queue& queue : s.queues) {
      const DepartmentQuota* quota = QuotaIn(d, queue.name);
      if (!quota) continue;
      MilliGpu asked = 0;
      for (const Project* p : members[d.name]) asked += out[{p->name, queue.name}];
      MilliGpu room = std::max<MilliGpu>(0, quota->gpu);
      if (asked <= room) continue;
      for (const Project* p : members[d.name]) {
        MilliGpu& g = out[{p->name, queue.name}];
        g = static_cast<MilliGpu>(static_cast<Wide>(g) * room / asked);
      }
    }
  }
  return out;
}

void CheckDepartments(const Snapshot& before, const Decisions& d, const Snapshot& after,
                      std::vector<std::string>& errors) {
  if (before.departments.empty()) return;
  std::map<Key, MilliGpu> guarantees = Guarantees(before);
  std::map<Key, MilliGpu> allocated;  // By the engine's own shares.
  for (const ProjectShare& share : d.shares) {
    allocated[{share.project, share.queue}] = share.allocated;
    if (share.quota != guarantees[{share.project, share.queue}]) {
      errors.push_back("project " + share.project + " is guaranteed " +
                       std::to_string(share.quota) + " in queue " + share.queue +
                       ", the rules give " +
                       std::to_string(guarantees[{share.project, share.queue}]));
    }
  }
  // Use after the cycle, stopping victims included (they count against their own
  // department's admissions until gone); admissions by kind.
  std::map<Key, MilliGpu> used, admitted_in_quota;
  std::set<Key> admitted_over_quota;
  for (const RunningJob& r : after.running) {
    used[{r.project, r.queue}] += r.shape.gpu_milli * std::ssize(r.replicas);
  }
  std::map<std::string, const PendingJob*> pending;
  for (const PendingJob& p : before.pending) pending[p.name] = &p;
  for (const Admission& a : d.admissions) {
    const PendingJob* job = pending[a.job];
    if (!job) continue;
    Key key{job->project, job->queue};
    if (a.over_quota) {
      admitted_over_quota.insert(key);
    } else {
      admitted_in_quota[key] += job->shape.gpu_milli * std::ssize(a.replicas);
    }
  }
  std::map<std::string, std::vector<const Project*>> members = Members(before);
  for (const Department& dep : before.departments) {
    for (const Queue& queue : before.queues) {
      const DepartmentQuota* quota = QuotaIn(dep, queue.name);
      MilliGpu guaranteed = 0, use = 0, in_quota = 0, share_allocated = 0;
      bool over = false;
      for (const Project* p : members[dep.name]) {
        Key key{p->name, queue.name};
        guaranteed += guarantees[key];
        use += used[key];
        in_quota += admitted_in_quota[key];
        share_allocated += allocated[key];
        over = over || admitted_over_quota.count(key);
      }
      std::string where = "department " + dep.name + " in queue " + queue.name;
      if (quota && guaranteed > std::max<MilliGpu>(0, quota->gpu)) {
        errors.push_back(where + ": its projects' guarantees exceed its quota");
      }
      if (quota && quota->limit >= 0 && over &&
          use > std::max(quota->limit, quota->gpu) + in_quota) {
        errors.push_back(where + ": over-quota work took it above its limit");
      }
      for (const DepartmentShare& share : d.department_shares) {
        if (share.department != dep.name || share.queue != queue.name) continue;
        if (share.allocated != share_allocated) {
          errors.push_back(where + ": allocated is not its projects' allocations summed");
        }
        if (quota && share.quota != std::max<MilliGpu>(0, quota->gpu)) {
          errors.push_back(where + ": its share does not carry its quota");
        }
      }
    }
  }
}

}  // namespace gpupool::engine::testing
