// A cycle's budget of job status writes that neither admit nor free anything,
// so that a busy cycle ends, and the next one admits, sooner.
#include <algorithm>
#include <set>

#include "gpupool/operator/plan.h"

namespace gpupool::op {

std::size_t DeferStatusWrites(Plan& plan, std::size_t per_cycle, std::size_t& turn) {
  if (per_cycle == 0) return 0;
  // One more for every job admitted: under a steady load the Running statuses
  // of the jobs a cycle admits keep pace with the admissions.
  const std::size_t budget = per_cycle + plan.admission_statuses.size();
  const std::size_t start = turn;
  turn += budget;
  auto& writes = plan.other_statuses;
  // Usage statuses first, and all of them: there are few, one per object.
  const auto jobs = std::stable_partition(writes.begin(), writes.end(), [](const StatusWrite& w) {
    return w.kind != Kind::kTrainingJob;
  });
  const auto count = static_cast<std::size_t>(writes.end() - jobs);
  if (count <= budget) return 0;
  // The kept window starts `start` writes in and wraps around, so that a
  // backlog is worked through instead of the first jobs being kept every cycle.
  std::rotate(jobs, jobs + static_cast<std::ptrdiff_t>(start % count), writes.end());
  std::set<std::pair<Kind, std::string>> deferred;
  for (auto it = jobs + static_cast<std::ptrdiff_t>(budget); it != writes.end(); ++it)
    deferred.emplace(it->kind, it->ns + "/" + it->name);
  writes.erase(jobs + static_cast<std::ptrdiff_t>(budget), writes.end());
  std::erase_if(plan.events, [&](const EventNote& note) {
    return deferred.count({note.kind, note.ns + "/" + note.name}) > 0;
  });
  return count - budget;
}

}  // namespace gpupool::op
