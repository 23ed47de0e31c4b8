// The quota-standing invariants, from the snapshots and decisions alone: the jobs
// shown over quota are the ones the decisions list, a project shows within its
// quota no more than the quota, and a reclaim never stops a job shown within quota
// while its project runs a job shown over quota that would free the same room.
#include <algorithm>
#include <map>
#include <set>

#include "invariants.h"

namespace gpupool::engine::testing {
namespace {

using Key = std::pair<std::string, std::string>;  // project, queue

MilliGpu Gpus(const RunningJob& job) {
  return job.shape.gpu_milli * static_cast<MilliGpu>(job.replicas.size());
}

// What the decisions list (every admission among it), what their shares count and
// what the state after them marks agree.
void CheckListed(const Decisions& decisions, const Snapshot& after,
                 std::vector<std::string>& errors) {
  std::map<std::string, bool> marked;
  std::map<Key, MilliGpu> over;
  for (const RunningJob& job : after.running) {
    if (job.terminating) continue;
    marked[job.name] = job.over_quota.value_or(false);
    if (marked[job.name]) over[{job.project, job.queue}] += Gpus(job);
  }
  std::set<std::string> listed;
  for (const Standing& standing : decisions.standing) {
    listed.insert(standing.job);
    auto it = marked.find(standing.job);
    if (it == marked.end() || it->second != standing.over_quota)
      errors.push_back("the standing listed for " + standing.job + " is not the state's");
  }
  for (const Admission& admission : decisions.admissions) {
    if (!listed.count(admission.job))
      errors.push_back("admitted job " + admission.job + " has no standing listed");
  }
  for (const ProjectShare& share : decisions.shares) {
    if (share.over_quota == over[{share.project, share.queue}]) continue;
    errors.push_back("project " + share.project + " counts " + std::to_string(share.over_quota) +
                     " mGPU over quota, its jobs shown over quota hold " +
                     std::to_string(over[{share.project, share.queue}]));
  }
}

// Within its guarantee: what a project shows within quota fits in it, and a project
// at or below its guarantee shows nothing over it.
void CheckWithinFits(const Snapshot& after, std::vector<std::string>& errors) {
  const std::map<Key, MilliGpu> guarantees = Guarantees(after);
  std::map<Key, MilliGpu> within, used;
  for (const RunningJob& job : after.running) {
    if (job.terminating) continue;
    Key key{job.project, job.queue};
    used[key] += Gpus(job);
    if (!job.over_quota.value_or(false)) within[key] += Gpus(job);
  }
  for (const RunningJob& job : after.running) {
    if (job.terminating) continue;
    Key key{job.project, job.queue};
    auto g = guarantees.find(key);
    MilliGpu guarantee = g == guarantees.end() ? 0 : g->second;
    if (within[key] > guarantee && IsPreemptible(job.workload_class) &&
        !job.over_quota.value_or(false)) {
      errors.push_back("project " + job.project + " shows " + std::to_string(within[key]) +
                       " mGPU within its quota of " + std::to_string(guarantee));
    }
    if (job.over_quota.value_or(false) && used[key] <= guarantee) {
      errors.push_back(job.name + " is shown over quota but project " + job.project + " uses " +
                       std::to_string(used[key]) + " of " + std::to_string(guarantee));
    }
  }
}

// A reclaimed whole-GPU job shown within quota, one replica: another job of its
// project and queue shown over quota, no victim, allowed to stop, on the same node
// with as many GPUs and at least its CPU and memory, would have freed the same room.
void CheckReclaimTakesOverQuotaFirst(const Snapshot& before, const Decisions& decisions,
                                     std::vector<std::string>& errors) {
  std::map<std::string, const RunningJob*> running;
  for (const RunningJob& job : before.running) running[job.name] = &job;
  std::map<std::string, Seconds> min_runtime;
  for (const Queue& q : before.queues) min_runtime[q.name] = q.min_runtime_seconds;
  std::set<std::string> victims;
  for (const Preemption& p : decisions.preemptions) victims.insert(p.victim);
  for (const Preemption& p : decisions.preemptions) {
    if (p.reason != PreemptionReason::kReclaim) continue;
    const RunningJob* v = running[p.victim];
    if (!v || v->over_quota.value_or(false) || v->replicas.size() != 1 ||
        v->shape.gpu_milli % kMilliPerGpu != 0)
      continue;
    for (const RunningJob& u : before.running) {
      if (!u.over_quota.value_or(false) || u.terminating || victims.count(u.name) ||
          u.project != v->project || u.queue != v->queue || !IsPreemptible(u.workload_class) ||
          u.replicas.size() != 1 || u.replicas[0].node != v->replicas[0].node ||
          u.shape.gpu_milli != v->shape.gpu_milli || u.shape.cpu_milli < v->shape.cpu_milli ||
          u.shape.memory_bytes < v->shape.memory_bytes || u.start_time < v->start_time ||
          before.now - u.start_time < min_runtime[u.queue]) {
        continue;
      }
      errors.push_back("reclaim stopped " + v->name + ", shown within quota, while " + u.name +
                       " of the same project, shown over quota, would have freed the same room");
      break;
    }
  }
}

}  // namespace

void CheckStanding(const Snapshot& before, const Decisions& decisions, const Snapshot& after,
                   std::vector<std::string>& errors) {
  CheckListed(decisions, after, errors);
  CheckWithinFits(after, errors);
  CheckReclaimTakesOverQuotaFirst(before, decisions, errors);
}

}  // namespace gpupool::engine::testing
