// Cycle step 6's budget of job status writes that neither admit nor free
// anything, so that a busy cycle ends, and the next one admits, sooner; the
// statuses left out are not built at all.
#include <algorithm>
#include <unordered_set>

#include "cycle_state.h"

namespace gpupool::op::internal {
namespace {

constexpr std::size_t kBacklogShare = 8;

// One more for every job admitted, so that under a steady load the Running
// statuses of the jobs a cycle admits keep pace with the admissions; and an
// eighth of those planned, so that a backlog left by a burst drains in a few
// dozen cycles once the admissions stop.
std::size_t Budget(const CycleState& state, std::size_t count) {
  const std::size_t per_cycle = state.options.status_writes_per_cycle;
  if (per_cycle == 0) return count;
  return per_cycle + state.plan.admission_statuses.size() + count / kBacklogShare;
}

void DropEventsOf(CycleState& state, std::span<JobRecord* const> deferred) {
  std::unordered_set<std::string_view> keys;
  for (const JobRecord* job : deferred) keys.insert(job->key);
  std::string key;
  std::erase_if(state.plan.events, [&](const EventNote& note) {
    if (note.kind != Kind::kTrainingJob) return false;
    key.assign(note.ns).append("/").append(note.name);
    return keys.count(key) > 0;
  });
}

}  // namespace

std::span<JobRecord* const> WithinStatusBudget(CycleState& state, std::vector<JobRecord*>& jobs) {
  const std::size_t count = jobs.size();
  const std::size_t budget = Budget(state, count);
  const std::size_t turn = state.options.status_turn;
  state.plan.next_status_turn = state.options.status_writes_per_cycle == 0 ? turn : turn + budget;
  if (count <= budget) return jobs;
  // The kept window starts `turn` jobs in and wraps around, so that a backlog
  // is worked through instead of the first jobs being kept every cycle.
  std::rotate(jobs.begin(), jobs.begin() + static_cast<std::ptrdiff_t>(turn % count), jobs.end());
  const std::span<JobRecord* const> all(jobs);
  DropEventsOf(state, all.subspan(budget));
  state.plan.deferred_statuses = count - budget;
  return all.first(budget);
}

}  // namespace gpupool::op::internal
