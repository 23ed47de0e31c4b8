#include "victim_order.h"

#include <algorithm>
#include <tuple>

namespace gpupool::engine::internal {
namespace {

// The tiebreak for one job: the one started last first, then by UID, then by name.
bool LaterThenUid(const ClusterState& state, int a, int b) {
  const JobState& x = state.jobs[a];
  const JobState& y = state.jobs[b];
  if (x.start_time != y.start_time) return x.start_time > y.start_time;
  return std::tie(x.uid, x.name) < std::tie(y.uid, y.name);
}

bool TiebreakFirst(const ClusterState& state, const std::vector<int>& a,
                   const std::vector<int>& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [&](int x, int y) { return LaterThenUid(state, x, y); });
}

// Criteria 1 and 2 of both orders: below 0 when `a` is cheaper, 0 on a tie.
int CompareStanding(const StopCost& a, const StopCost& b) {
  if (a.outside_departments_over_quota != b.outside_departments_over_quota) {
    return a.outside_departments_over_quota ? 1 : -1;
  }
  if (a.some_within_quota == b.some_within_quota) return 0;
  return a.some_within_quota ? 1 : -1;
}

// Criteria 3 to 6 of CheaperToStop: below 0 when `a` is cheaper, 0 on a tie.
int CompareWork(const StopCost& a, const StopCost& b) {
  if (a.top_priority != b.top_priority) return a.top_priority < b.top_priority ? -1 : 1;
  if (a.work_lost != b.work_lost) return a.work_lost < b.work_lost ? -1 : 1;
  if (a.gpu != b.gpu) return a.gpu < b.gpu ? -1 : 1;
  if (a.least_over_share != b.least_over_share) {
    return a.least_over_share > b.least_over_share ? -1 : 1;
  }
  return 0;
}

// Criteria 1 to 6 of CheaperToStop.
int CompareCost(const StopCost& a, const StopCost& b) {
  if (int c = CompareStanding(a, b)) return c;
  return CompareWork(a, b);
}

// Criteria 3 to 6 of FewerVictimsFirst, after the number of victims.
int CompareFewest(const StopCost& a, const StopCost& b) {
  if (a.gpu != b.gpu) return a.gpu < b.gpu ? -1 : 1;
  if (a.top_priority != b.top_priority) return a.top_priority < b.top_priority ? -1 : 1;
  if (a.least_over_share != b.least_over_share) {
    return a.least_over_share > b.least_over_share ? -1 : 1;
  }
  if (a.latest_start != b.latest_start) return a.latest_start > b.latest_start ? -1 : 1;
  return 0;
}

}  // namespace

Seconds SinceCheckpoint(const JobState& job, Seconds now) {
  if (job.saves_on_preemption) return 0;
  Seconds ran = std::max<Seconds>(0, now - job.start_time);
  if (job.checkpoint_interval_seconds <= 0) return ran;
  return ran % job.checkpoint_interval_seconds;
}

double OverShare(MilliGpu allocated, MilliGpu deserved) {
  if (deserved > 0) return static_cast<double>(allocated) / static_cast<double>(deserved);
  return allocated > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

void StopCost::Add(const ClusterState& state, const JobState& victim, double over_share) {
  MilliGpu victim_gpu = state.JobGpu(victim, static_cast<int>(victim.placed.size()));
  if (!state.departments.empty() && !state.DepartmentOverQuota(victim.queue, victim.project)) {
    outside_departments_over_quota = true;
  }
  if (!victim.over_quota) some_within_quota = true;
  top_priority = std::max(top_priority, victim.priority);
  work_lost += victim_gpu * SinceCheckpoint(victim, state.now);
  gpu += victim_gpu;
  least_over_share = std::min(least_over_share, over_share);
  latest_start = std::max(latest_start, victim.start_time);
}

void VictimCost::Add(const ClusterState& state, int job, double over_share) {
  cost.Add(state, state.jobs[job], over_share);
  auto at = std::lower_bound(jobs.begin(), jobs.end(), job,
                             [&](int a, int b) { return LaterThenUid(state, a, b); });
  jobs.insert(at, job);
}

bool CheaperToStop(const ClusterState& state, const VictimCost& a, const VictimCost& b) {
  if (int c = CompareCost(a.cost, b.cost)) return c < 0;  // 1. to 6.
  return TiebreakFirst(state, a.jobs, b.jobs);            // 7.
}

bool CheaperToStop(const ClusterState& state, const LoneVictim& a, const LoneVictim& b) {
  if (int c = CompareCost(a.cost, b.cost)) return c < 0;
  return LaterThenUid(state, a.job, b.job);
}

InProjectStopKey InProjectStopKey::Of(const ClusterState& state, int job) {
  const JobState& j = state.jobs[job];
  MilliGpu gpu = state.JobGpu(j, static_cast<int>(j.placed.size()));
  return {j.priority, gpu * SinceCheckpoint(j, state.now), gpu, j.start_time, &j.uid, &j.name, job};
}

bool operator<(const InProjectStopKey& a, const InProjectStopKey& b) {
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.work_lost != b.work_lost) return a.work_lost < b.work_lost;
  if (a.gpu != b.gpu) return a.gpu < b.gpu;
  if (a.start != b.start) return a.start > b.start;  // The one started last first.
  return std::tie(*a.uid, *a.name) < std::tie(*b.uid, *b.name);
}

bool FewerVictimsFirst(const ClusterState& state, const VictimCost& a, const VictimCost& b) {
  if (int c = CompareStanding(a.cost, b.cost)) return c < 0;
  if (a.jobs.size() != b.jobs.size()) return a.jobs.size() < b.jobs.size();
  if (int c = CompareFewest(a.cost, b.cost)) return c < 0;
  return TiebreakFirst(state, a.jobs, b.jobs);
}

bool FewerVictimsFirst(const ClusterState& state, const LoneVictim& a, const LoneVictim& b) {
  if (int c = CompareStanding(a.cost, b.cost)) return c < 0;
  if (int c = CompareFewest(a.cost, b.cost)) return c < 0;
  return LaterThenUid(state, a.job, b.job);
}

}  // namespace gpupool::engine::internal
