#include "invariants.h"

#include <algorithm>
#include <map>
#include <set>

namespace gpupool::engine::testing {
namespace {

struct Quota {
  MilliGpu gpu = 0;
  MilliGpu limit = -1;
};

using Key = std::pair<std::string, std::string>;  // project, queue

// Guarantees in force (departments applied); limits never below the quota as given.
std::map<Key, Quota> Quotas(const Snapshot& s) {
  std::map<Key, MilliGpu> guarantees = Guarantees(s);
  std::map<Key, Quota> out;
  for (const Project& p : s.projects) {
    for (const ProjectQuota& q : p.quotas) {
      MilliGpu limit = q.limit < 0 ? -1 : std::max(q.limit, q.gpu);
      out[{p.name, q.queue}] = {guarantees[{p.name, q.queue}], limit};
    }
  }
  return out;
}

// GPUs used per project and queue. Terminating victims count against their
// project's own admissions, except this cycle's (`d`'s), which were admitted over;
// with `d` null, terminating victims are left out (reclaim does not count them).
std::map<Key, MilliGpu> Usage(const Snapshot& s, bool non_preemptible_only, const Decisions* d) {
  std::set<std::string> victims;
  if (d) {
    for (const Preemption& p : d->preemptions) victims.insert(p.victim);
  }
  std::map<Key, MilliGpu> out;
  for (const RunningJob& j : s.running) {
    if (j.terminating && (!d || victims.count(j.name))) continue;
    if (non_preemptible_only && IsPreemptible(j.workload_class)) continue;
    out[{j.project, j.queue}] += j.shape.gpu_milli * static_cast<MilliGpu>(j.replicas.size());
  }
  return out;
}

// Per node and device: milli used, and whether a whole-GPU replica is there.
struct DeviceUse {
  MilliGpu milli = 0;
  bool whole = false;
  int users = 0;
};

void CheckDevices(const Snapshot& s, std::vector<std::string>& errors) {
  std::map<std::string, const Node*> nodes;
  for (const Node& n : s.nodes) nodes[n.name] = &n;
  std::map<std::pair<std::string, int>, DeviceUse> use;
  std::map<std::string, MilliCpu> cpu;
  std::map<std::string, std::set<int>> in_use;
  for (const RunningJob& j : s.running) {
    for (const ReplicaPlacement& r : j.replicas) {
      auto node = nodes.find(r.node);
      if (node == nodes.end()) {
        errors.push_back("job " + j.name + " on unknown node " + r.node);
        continue;
      }
      in_use[r.node].insert(r.devices.begin(), r.devices.end());
      // A terminating victim shares its devices with its beneficiary (CheckHeldRoom).
      if (j.terminating) continue;
      cpu[r.node] += j.shape.cpu_milli;
      std::size_t expected = j.shape.gpu_milli == 0 ? 0
                             : j.shape.gpu_milli < kMilliPerGpu
                                 ? 1
                                 : static_cast<std::size_t>(j.shape.gpu_milli / kMilliPerGpu);
      if (r.devices.size() != expected) errors.push_back("job " + j.name + " has wrong devices");
      for (int d : r.devices) {
        DeviceUse& u = use[{r.node, d}];
        u.milli += std::min(j.shape.gpu_milli, kMilliPerGpu);
        u.whole = u.whole || j.shape.gpu_milli >= kMilliPerGpu;
        ++u.users;
        if (d < 0 || d >= node->second->gpus) errors.push_back("job " + j.name + " bad device");
      }
    }
  }
  for (const auto& [where, u] : use) {
    const Node* node = nodes[where.first];
    MilliGpu unmanaged = node->unmanaged_milli.empty() ? 0 : node->unmanaged_milli[where.second];
    if (u.milli + unmanaged > kMilliPerGpu) {
      errors.push_back("device over-allocated: " + where.first + "/" +
                       std::to_string(where.second));
    }
    if (u.whole && (u.users > 1 || unmanaged > 0)) {
      errors.push_back("whole GPU shared: " + where.first + "/" + std::to_string(where.second));
    }
  }
  for (const auto& [name, used] : cpu) {
    if (used > nodes[name]->cpu_milli) errors.push_back("node cpu over-allocated: " + name);
  }
  // Unmanaged whole devices are a count: with every device in use (ours or
  // unmanaged_milli) they must fit in the node.
  for (const Node& node : s.nodes) {
    std::set<int>& devices = in_use[node.name];
    for (std::size_t d = 0; d < node.unmanaged_milli.size(); ++d) {
      if (node.unmanaged_milli[d] > 0) devices.insert(static_cast<int>(d));
    }
    if (static_cast<int>(devices.size()) + node.unmanaged_gpus > node.gpus) {
      errors.push_back("devices in use plus unmanaged GPUs exceed the node: " + node.name);
    }
  }
}

void CheckCoverage(const Snapshot& before, const Decisions& d, std::vector<std::string>& errors) {
  std::map<std::string, int> seen;
  for (const Admission& a : d.admissions) ++seen[a.job];
  for (const Waiting& w : d.waiting) {
    ++seen[w.job];
    if (w.message.empty()) errors.push_back("no reason for waiting job " + w.job);
  }
  for (const PendingJob& p : before.pending) {
    if (seen[p.name] != 1) errors.push_back("pending job not decided exactly once: " + p.name);
    const Admission* a = nullptr;
    for (const Admission& x : d.admissions) {
      if (x.job == p.name) a = &x;
    }
    if (a && (static_cast<int>(a->replicas.size()) < p.min_replicas ||
              static_cast<int>(a->replicas.size()) > p.replicas)) {
      errors.push_back("gang not whole: " + p.name);
    }
  }
}

void CheckPreemptions(const Snapshot& before, const Decisions& d, const Snapshot& after,
                      std::vector<std::string>& errors) {
  std::map<std::string, const RunningJob*> running;
  for (const RunningJob& j : before.running) running[j.name] = &j;
  std::map<std::string, const PendingJob*> pending;
  for (const PendingJob& j : before.pending) pending[j.name] = &j;
  std::map<Key, Quota> quotas = Quotas(before);
  std::map<Key, MilliGpu> usage = Usage(after, false, nullptr);
  // The beneficiary's project may also have taken free room over quota later in the
  // same cycle: those admissions are not what the reclaim was for.
  std::map<Key, MilliGpu> over_quota_admitted;
  for (const Admission& a : d.admissions) {
    auto job = pending.find(a.job);
    if (!a.over_quota || job == pending.end()) continue;
    over_quota_admitted[{job->second->project, job->second->queue}] +=
        job->second->shape.gpu_milli * static_cast<MilliGpu>(a.replicas.size());
  }
  // A project may later in the cycle swap its own jobs for higher-priority ones and
  // so go below quota by its own choice: count those swapped-out jobs as kept.
  std::map<Key, MilliGpu> kept = usage;
  for (const Preemption& p : d.preemptions) {
    auto v = running.find(p.victim);
    if (v == running.end() || p.reason != PreemptionReason::kProjectPriority) continue;
    kept[{v->second->project, v->second->queue}] +=
        v->second->shape.gpu_milli * static_cast<MilliGpu>(v->second->replicas.size());
  }
  for (const Preemption& p : d.preemptions) {
    auto v = running.find(p.victim);
    auto b = pending.find(p.beneficiary);
    if (v == running.end() || b == pending.end()) {
      errors.push_back("preemption names unknown jobs: " + p.victim);
      continue;
    }
    if (!IsPreemptible(v->second->workload_class)) errors.push_back("non-preemptible victim");
    if (p.reason == PreemptionReason::kProjectPriority &&
        (v->second->project != b->second->project || v->second->priority >= b->second->priority)) {
      errors.push_back("in-project preemption of another project or equal priority");
    }
    if (p.reason == PreemptionReason::kReclaim) {
      Key victim{v->second->project, v->second->queue};
      Key winner{b->second->project, b->second->queue};
      if (kept[victim] < quotas[victim].gpu) errors.push_back("reclaim left victim below quota");
      if (usage[winner] - over_quota_admitted[winner] > quotas[winner].gpu) {
        errors.push_back("reclaim for over-quota work");
      }
      const Admission* admission = nullptr;
      for (const Admission& a : d.admissions) {
        if (a.job == p.beneficiary) admission = &a;
      }
      if (!admission || admission->over_quota) errors.push_back("reclaim beneficiary over quota");
    }
  }
}

// Checked where this cycle admitted work: a quota lowered by the cluster leaves the
// work above it running, but nothing more is admitted there.
void CheckQuotas(const Snapshot& before, const Decisions& d, const Snapshot& after,
                 std::vector<std::string>& errors) {
  std::map<Key, Quota> quotas = Quotas(after);
  std::map<std::string, Sharing> sharing;
  for (const Queue& q : after.queues) sharing[q.name] = q.sharing;
  std::map<Key, bool> admitted;  // Whether non-preemptible work was among it.
  for (const Admission& a : d.admissions) {
    for (const PendingJob& p : before.pending) {
      if (p.name == a.job) admitted[{p.project, p.queue}] |= !IsPreemptible(p.workload_class);
    }
  }
  for (const auto& [key, used] : Usage(after, false, &d)) {
    if (!admitted.count(key)) continue;
    if (sharing[key.second] == Sharing::kFixed && used > quotas[key].gpu) {
      errors.push_back("fixed quota exceeded: " + key.first);
    }
    if (quotas[key].limit >= 0 && used > std::max(quotas[key].limit, quotas[key].gpu)) {
      errors.push_back("limit exceeded: " + key.first);
    }
  }
  for (const auto& [key, used] : Usage(after, true, &d)) {
    if (admitted[key] && used > quotas[key].gpu)
      errors.push_back("non-preemptible work over quota: " + key.first);
  }
}

// Room held before the cycle — by running work, terminating victims, unmanaged pods —
// is not given to this cycle's admissions; only a victim's own beneficiary may use
// the victim's room (the victim holds it until it is gone).
void CheckHeldRoom(const Snapshot& before, const Decisions& d, std::vector<std::string>& errors) {
  std::map<std::string, std::string> beneficiary_of;
  for (const Preemption& p : d.preemptions) beneficiary_of[p.victim] = p.beneficiary;
  std::map<std::pair<std::string, int>, MilliGpu> held, added;
  std::map<std::pair<std::string, int>, bool> whole;
  std::map<std::pair<std::string, int>, std::set<std::string>> allowed;
  for (const Node& n : before.nodes) {
    for (std::size_t i = 0; i < n.unmanaged_milli.size(); ++i) {
      held[{n.name, static_cast<int>(i)}] += n.unmanaged_milli[i];
    }
  }
  for (const RunningJob& j : before.running) {
    auto beneficiary = beneficiary_of.find(j.name);
    for (const ReplicaPlacement& r : j.replicas) {
      for (int dev : r.devices) {
        held[{r.node, dev}] += std::min(j.shape.gpu_milli, kMilliPerGpu);
        if (beneficiary != beneficiary_of.end()) allowed[{r.node, dev}].insert(beneficiary->second);
      }
    }
  }
  std::map<std::string, const PendingJob*> pending;
  for (const PendingJob& p : before.pending) pending[p.name] = &p;
  for (const Admission& a : d.admissions) {
    auto job = pending.find(a.job);
    if (job == pending.end()) continue;
    MilliGpu milli = job->second->shape.gpu_milli;
    for (const ReplicaPlacement& r : a.replicas) {
      for (int dev : r.devices) {
        if (allowed[{r.node, dev}].count(a.job)) continue;  // Its victim's room.
        added[{r.node, dev}] += std::min(milli, kMilliPerGpu);
        whole[{r.node, dev}] = whole[{r.node, dev}] || milli >= kMilliPerGpu;
      }
    }
  }
  for (const auto& [where, milli] : added) {
    MilliGpu kept = held[where];
    if (kept + milli > kMilliPerGpu || (whole[where] && kept > 0)) {
      errors.push_back("held room given away: " + where.first + "/" + std::to_string(where.second));
    }
  }
}

}  // namespace

void CheckReclaimProgress(const Snapshot& before, const Decisions& d, const Snapshot& after,
                          std::vector<std::string>& errors);
void CheckFairShare(const Snapshot& before, const Decisions& d, const Snapshot& after,
                    std::vector<std::string>& errors);
void CheckRunningSet(const Snapshot& before, const Decisions& d, const Snapshot& after,
                     std::vector<std::string>& errors);
void CheckPlacementRules(const Snapshot& before, const Decisions& d,
                         std::vector<std::string>& errors);

std::vector<std::string> CheckInvariants(const Snapshot& before, const Decisions& decisions,
                                         const Snapshot& after, bool check_reclaim_progress) {
  std::vector<std::string> errors;
  CheckDevices(after, errors);
  CheckCoverage(before, decisions, errors);
  CheckPreemptions(before, decisions, after, errors);
  CheckQuotas(before, decisions, after, errors);
  CheckHeldRoom(before, decisions, errors);
  CheckRunningSet(before, decisions, after, errors);
  CheckPlacementRules(before, decisions, errors);
  CheckDepartments(before, decisions, after, errors);
  CheckStanding(before, decisions, after, errors);
  if (check_reclaim_progress) {
    CheckReclaimProgress(before, decisions, after, errors);
    CheckFairShare(before, decisions, after, errors);
  }
  return errors;
}

}  // namespace gpupool::engine::testing
