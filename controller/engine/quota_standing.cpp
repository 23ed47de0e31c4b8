#include "quota_standing.h"

#include <algorithm>

#include "victim_order.h"

namespace gpupool::engine::internal {
namespace {

// Marks the preemptible running jobs of one slot, taken dearest to stop first,
// after the room its other running work takes from the quota. Appends the jobs
// whose standing changed.
void MarkSlot(ClusterState& state, std::size_t slot, std::vector<int>& changed) {
  const VictimSet& running = state.victims[slot];
  std::vector<InProjectStopKey> keys;
  keys.reserve(running.size());
  MilliGpu preemptible = 0;
  for (int job : running) {
    keys.push_back(InProjectStopKey::Of(state, job));
    preemptible += keys.back().gpu;
  }
  // Work that is never preempted comes first.
  MilliGpu room = state.quotas[slot].gpu - (state.usage[slot].gpu - preemptible);
  if (state.usage[slot].gpu > state.quotas[slot].gpu) {
    std::sort(keys.begin(), keys.end(),
              [](const InProjectStopKey& a, const InProjectStopKey& b) { return b < a; });
  }
  MilliGpu over_gpu = 0;
  bool within = true;
  for (const InProjectStopKey& key : keys) {
    within = within && key.gpu <= room;
    room -= key.gpu;
    if (!within) over_gpu += key.gpu;
    JobState& job = state.jobs[key.job];
    if (job.over_quota == !within) continue;
    job.over_quota = !within;
    changed.push_back(key.job);
  }
  state.over_gpu[slot] = over_gpu;
}

}  // namespace

std::vector<int> MarkQuotaStanding(ClusterState& state) {
  std::vector<int> changed;
  ClusterState::StandingChanges& changes = state.standing_changes;
  std::vector<std::size_t>& slots = changes.slots;
  if (changes.all || state.over_gpu.size() != state.victims.size()) {
    state.over_gpu.assign(state.victims.size(), 0);
    // Work that is never preempted, or of no queue, is shown within quota.
    for (int j = 0; j < static_cast<int>(state.jobs.size()); ++j) {
      JobState& job = state.jobs[j];
      const bool in_slot = job.queue >= 0 && IsPreemptible(job.workload_class);
      if (!job.over_quota || in_slot || !job.alive) continue;
      job.over_quota = false;
      if (job.running) changed.push_back(j);
    }
    slots.resize(state.victims.size());
    for (std::size_t slot = 0; slot < slots.size(); ++slot) slots[slot] = slot;
  } else {
    std::sort(slots.begin(), slots.end());
    slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
  }
  for (std::size_t slot : slots) MarkSlot(state, slot, changed);
  slots.clear();
  changes.all = false;
  return changed;
}

}  // namespace gpupool::engine::internal
