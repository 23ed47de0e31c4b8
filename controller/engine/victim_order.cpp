#include "victim_order.h"

#include <algorithm>
#include <tuple>

namespace gpupool::engine::internal {
namespace {

bool ByNameThenUid(const EngineState& state, int a, int b) {
  const JobState& x = state.jobs[a];
  const JobState& y = state.jobs[b];
  return std::tie(x.name, x.uid) < std::tie(y.name, y.uid);
}

}  // namespace

Seconds SinceCheckpoint(const JobState& job, Seconds now) {
  Seconds ran = std::max<Seconds>(0, now - job.start_time);
  if (job.checkpoint_interval_seconds <= 0) return ran;
  return ran % job.checkpoint_interval_seconds;
}

double OverShare(MilliGpu allocated, MilliGpu deserved) {
  if (deserved > 0) return static_cast<double>(allocated) / static_cast<double>(deserved);
  return allocated > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

void VictimCost::Add(const EngineState& state, int job, double over_share) {
  const JobState& victim = state.jobs[job];
  MilliGpu victim_gpu = state.JobGpu(victim, static_cast<int>(victim.placed.size()));
  top_priority = std::max(top_priority, victim.priority);
  work_lost += victim_gpu * SinceCheckpoint(victim, state.now);
  gpu += victim_gpu;
  least_over_share = std::min(least_over_share, over_share);
  latest_start = std::max(latest_start, victim.start_time);
  auto at = std::lower_bound(jobs.begin(), jobs.end(), job,
                             [&](int a, int b) { return ByNameThenUid(state, a, b); });
  jobs.insert(at, job);
}

bool CheaperToStop(const EngineState& state, const VictimCost& a, const VictimCost& b) {
  if (a.top_priority != b.top_priority) return a.top_priority < b.top_priority;  // 1.
  if (a.work_lost != b.work_lost) return a.work_lost < b.work_lost;              // 2.
  if (a.gpu != b.gpu) return a.gpu < b.gpu;                                      // 3.
  if (a.least_over_share != b.least_over_share) {                                // 4.
    return a.least_over_share > b.least_over_share;
  }
  return std::lexicographical_compare(  // 5.
      a.jobs.begin(), a.jobs.end(), b.jobs.begin(), b.jobs.end(),
      [&](int x, int y) { return ByNameThenUid(state, x, y); });
}

bool FewerVictimsFirst(const EngineState& state, const VictimCost& a, const VictimCost& b) {
  if (a.jobs.size() != b.jobs.size()) return a.jobs.size() < b.jobs.size();
  if (a.gpu != b.gpu) return a.gpu < b.gpu;
  if (a.top_priority != b.top_priority) return a.top_priority < b.top_priority;
  if (a.least_over_share != b.least_over_share) return a.least_over_share > b.least_over_share;
  if (a.latest_start != b.latest_start) return a.latest_start > b.latest_start;
  return std::lexicographical_compare(a.jobs.begin(), a.jobs.end(), b.jobs.begin(), b.jobs.end(),
                                      [&](int x, int y) { return ByNameThenUid(state, x, y); });
}

}  // namespace gpupool::engine::internal
