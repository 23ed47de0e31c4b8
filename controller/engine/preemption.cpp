// Choosing victims: reclaim from other projects' over-quota work, and in-project
// priority preemption. Both pick victims in a fixed order until the job fits, then
// drop every victim the job can do without, so the set is minimal.
#include <algorithm>
#include <limits>

#include "cycle.h"

namespace gpupool::engine::internal {
namespace {

double OverShare(MilliGpu allocated, MilliGpu deserved) {
  if (deserved > 0) return static_cast<double>(allocated) / static_cast<double>(deserved);
  return allocated > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace

bool Cycle::VictimAllowed(const JobState& victim) const {
  if (!victim.running || !IsPreemptible(victim.workload_class)) return false;
  if (touched_.count(state_.job_index.at(victim.name))) return false;
  Seconds min_runtime = state_.queues[victim.queue].spec.min_runtime_seconds;
  return state_.now - victim.start_time >= min_runtime;
}

// Victims come from the project furthest over its deserved share, lowest priority
// and shortest run first, and never take a project below its quota. Because the
// reclaiming job stays within its own quota and victims' projects stay at or above
// theirs, the victims' projects can never reclaim back: no loops.
bool Cycle::TryReclaim(int job, int count) {
  const JobState& j = state_.jobs[job];
  struct Source {
    int project;
    MilliGpu allocated;
    MilliGpu quota;
    MilliGpu deserved;
    std::set<int, VictimOrder>::const_iterator next, end;
  };
  std::vector<Source> sources;
  for (std::size_t p = 0; p < state_.projects.size(); ++p) {
    if (static_cast<int>(p) == j.project) continue;
    std::size_t slot = state_.Slot(j.queue, static_cast<int>(p));
    const QuotaState& quota = state_.quotas[slot];
    MilliGpu allocated = state_.usage[slot].gpu;
    if (allocated <= quota.gpu || state_.victims[slot].empty()) continue;
    sources.push_back({static_cast<int>(p), allocated, quota.gpu, quota.deserved,
                       state_.victims[slot].begin(), state_.victims[slot].end()});
  }
  VictimSource next = [&]() {
    while (true) {
      Source* best = nullptr;
      for (Source& s : sources) {
        if (s.next == s.end || s.allocated <= s.quota) continue;
        if (!best ||
            OverShare(s.allocated, s.deserved) > OverShare(best->allocated, best->deserved)) {
          best = &s;
        }
      }
      if (!best) return -1;
      int victim = *best->next++;
      const JobState& v = state_.jobs[victim];
      MilliGpu gpu = state_.JobGpu(v, static_cast<int>(v.placed.size()));
      if (!VictimAllowed(v) || best->allocated - gpu < best->quota) continue;
      best->allocated -= gpu;
      return victim;
    }
  };
  Accounting any = [](MilliGpu) { return true; };
  std::vector<int> victims = SelectVictims(job, count, next, any);
  if (victims.empty()) return false;
  return FinishPreemption(job, count, std::move(victims), PreemptionReason::kReclaim);
}

// A higher-priority job of the same project and queue takes the place of the
// project's lower-priority preemptible jobs.
bool Cycle::TryInProject(int job, int count, const Accounting& accounting) {
  const JobState& j = state_.jobs[job];
  const auto& candidates = state_.victims[state_.Slot(j.queue, j.project)];
  auto it = candidates.begin();
  VictimSource next = [&]() {
    while (it != candidates.end()) {
      int victim = *it++;
      const JobState& v = state_.jobs[victim];
      if (v.priority >= j.priority) return -1;  // Ordered by priority: none lower left.
      if (VictimAllowed(v)) return victim;
    }
    return -1;
  };
  std::vector<int> victims = SelectVictims(job, count, next, accounting);
  if (victims.empty()) return false;
  return FinishPreemption(job, count, std::move(victims), PreemptionReason::kProjectPriority);
}

bool Cycle::FinishPreemption(int job, int count, std::vector<int> victims,
                             PreemptionReason reason) {
  const JobState& j = state_.jobs[job];
  for (int v : victims) {
    for (const Placed& p : state_.jobs[v].placed) state_.Release(state_.jobs[v], p);
  }
  PlaceResult placed = placer_.Place(j, count, Eligible(j));
  for (int v : victims) {
    for (const Placed& p : state_.jobs[v].placed) state_.Take(state_.jobs[v], p);
  }
  if (placed.replicas.empty()) return false;
  Admit(job, std::move(placed.replicas), std::move(victims), reason);
  return true;
}

// With the victims' resources released: does the job fit? A single replica can only
// newly fit on a node a victim left, so only those are searched.
bool Cycle::FitsAfterRelease(const JobState& job, int count, const std::vector<int>& victims) {
  const std::vector<int>& eligible = Eligible(job);
  if (count > 1) return !placer_.Place(job, count, eligible).replicas.empty();
  std::vector<int> nodes;
  for (int v : victims) {
    for (const Placed& p : state_.jobs[v].placed) {
      if (std::binary_search(eligible.begin(), eligible.end(), p.node)) nodes.push_back(p.node);
    }
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return !nodes.empty() && !placer_.Place(job, 1, nodes).replicas.empty();
}

std::vector<int> Cycle::SelectVictims(int job, int count, const VictimSource& next,
                                      const Accounting& accounting) {
  const JobState& j = state_.jobs[job];
  auto gpu_of = [&](int v) {
    const JobState& victim = state_.jobs[v];
    return victim.project == j.project
               ? state_.JobGpu(victim, static_cast<int>(victim.placed.size()))
               : MilliGpu{0};
  };
  auto release = [&](int v) {
    for (const Placed& p : state_.jobs[v].placed) state_.Release(state_.jobs[v], p);
  };
  auto take = [&](int v) {
    for (const Placed& p : state_.jobs[v].placed) state_.Take(state_.jobs[v], p);
  };
  std::vector<int> chosen;
  MilliGpu freed = 0;
  bool found = false;
  for (int v = next(); v >= 0; v = next()) {
    chosen.push_back(v);
    release(v);
    freed += gpu_of(v);
    if (accounting(freed) && FitsAfterRelease(j, count, chosen)) {
      found = true;
      break;
    }
  }
  if (found) {
    // Minimal: give back every victim the job can do without, latest chosen first.
    for (std::size_t i = chosen.size(); i-- > 0;) {
      int v = chosen[i];
      take(v);
      chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(i));
      if (accounting(freed - gpu_of(v)) && FitsAfterRelease(j, count, chosen)) {
        freed -= gpu_of(v);
        continue;
      }
      chosen.insert(chosen.begin() + static_cast<std::ptrdiff_t>(i), v);
      release(v);
    }
  }
  for (int v : chosen) take(v);
  if (!found) chosen.clear();
  return chosen;
}

}  // namespace gpupool::engine::internal
