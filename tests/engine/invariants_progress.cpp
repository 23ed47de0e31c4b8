// "A project below its guarantee is never blocked by over-quota work of others":
// after a cycle, no in-quota job waits for room that one reclaimable job of
// another, over-quota project is holding.
#include <algorithm>
#include <map>
#include <set>

#include "invariants.h"

namespace gpupool::engine::testing {
namespace {

// Whether one replica of `job` fits on `node` if `without` were gone.
bool FitsWithout(const Snapshot& s, const Node& node, const PendingJob& job,
                 const std::string& without) {
  std::vector<MilliGpu> used(static_cast<std::size_t>(node.gpus), 0);
  for (std::size_t d = 0; d < node.unmanaged_milli.size() && d < used.size(); ++d) {
    used[d] = node.unmanaged_milli[d];
  }
  MilliCpu cpu = 0;
  for (const RunningJob& r : s.running) {
    if (r.name == without) continue;
    for (const ReplicaPlacement& p : r.replicas) {
      if (p.node != node.name) continue;
      cpu += r.shape.cpu_milli;
      for (int d : p.devices) used[d] += std::min(r.shape.gpu_milli, kMilliPerGpu);
    }
  }
  if (cpu + job.shape.cpu_milli > node.cpu_milli) return false;
  MilliGpu m = job.shape.gpu_milli;
  // Unmanaged pods hold node.unmanaged_gpus of the devices that look free.
  MilliGpu whole_free = std::count(used.begin(), used.end(), 0) - node.unmanaged_gpus;
  if (m >= kMilliPerGpu) return whole_free >= m / kMilliPerGpu;
  if (whole_free > 0) return true;
  for (MilliGpu u : used) {
    if (u > 0 && u + m <= kMilliPerGpu) return true;
  }
  return false;
}

}  // namespace

// An in-quota job waits for capacity while one over-quota job of another project,
// which that project could give back, holds its room. `above_deserved_only`: only
// victims of projects above their deserved share (and the waiting job's project
// within its own), the fair-share form.
void CheckBlocked(const Snapshot& before, const Decisions& d, const Snapshot& after,
                  bool above_deserved_only, std::vector<std::string>& errors) {
  // Its own project counts its terminating victims; reclaim does not count the
  // victim project's.
  std::map<std::pair<std::string, std::string>, MilliGpu> quota = Guarantees(before), usage,
                                                          running;
  for (const RunningJob& r : after.running) {
    MilliGpu gpu = r.shape.gpu_milli * static_cast<MilliGpu>(r.replicas.size());
    usage[{r.project, r.queue}] += gpu;
    if (!r.terminating) running[{r.project, r.queue}] += gpu;
  }
  std::map<std::pair<std::string, std::string>, MilliGpu> deserved;
  for (const ProjectShare& share : d.shares)
    deserved[{share.project, share.queue}] = share.deserved;
  std::set<std::string> admitted;
  for (const Admission& a : d.admissions) admitted.insert(a.job);
  std::map<std::string, const Queue*> queues;
  for (const Queue& q : before.queues) queues[q.name] = &q;
  std::map<std::string, const Node*> nodes;
  for (const Node& n : after.nodes) nodes[n.name] = &n;
  for (const Waiting& w : d.waiting) {
    if (w.code != WaitCode::kCapacity) continue;
    auto job = std::find_if(before.pending.begin(), before.pending.end(),
                            [&](const PendingJob& p) { return p.name == w.job; });
    if (job == before.pending.end() || job->replicas != 1 || !job->node_selector.empty() ||
        !job->gpu_models.empty() || !queues.count(job->queue)) {
      continue;
    }
    const Queue& queue = *queues[job->queue];
    if (queue.sharing != Sharing::kGuaranteed || !queue.reclaim) continue;
    std::pair<std::string, std::string> own{job->project, job->queue};
    if (usage[own] + job->shape.gpu_milli > quota[own]) continue;
    if (above_deserved_only && usage[own] + job->shape.gpu_milli > deserved[own]) continue;
    for (const RunningJob& v : after.running) {
      std::pair<std::string, std::string> theirs{v.project, v.queue};
      MilliGpu size = v.shape.gpu_milli * static_cast<MilliGpu>(v.replicas.size());
      if (v.terminating || v.queue != job->queue || v.project == job->project ||
          !IsPreemptible(v.workload_class) || admitted.count(v.name) ||
          running[theirs] <= quota[theirs] || running[theirs] - size < quota[theirs] ||
          after.now - v.start_time < queue.min_runtime_seconds ||
          (above_deserved_only && running[theirs] <= deserved[theirs])) {
        continue;
      }
      for (const ReplicaPlacement& p : v.replicas) {
        const Node& node = *nodes[p.node];
        if (node.schedulable && SelectorMatches(queue.node_selector, node.labels) &&
            FitsWithout(after, node, *job, v.name)) {
          errors.push_back(std::string(above_deserved_only ? "fair share: " : "") + "job " +
                           job->name + " of project " + job->project +
                           " (below its guarantee) waits while over-quota job " + v.name +
                           " of project " + v.project + " holds its room");
          break;
        }
      }
    }
  }
}

void CheckReclaimProgress(const Snapshot& before, const Decisions& d, const Snapshot& after,
                          std::vector<std::string>& errors) {
  CheckBlocked(before, d, after, false, errors);
}

void CheckFairShare(const Snapshot& before, const Decisions& d, const Snapshot& after,
                    std::vector<std::string>& errors) {
  CheckBlocked(before, d, after, true, errors);
}

}  // namespace gpupool::engine::testing
