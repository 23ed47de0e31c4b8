// A cycle's budget of job status writes that neither admit nor free anything,
// so that a busy cycle ends, and the next one admits, sooner.
#include <algorithm>
#include <set>

#include "gpupool/kube/cache.h"
#include "gpupool/operator/plan.h"

namespace gpupool::op {

constexpr std::size_t kBacklogShare = 8;

std::size_t DeferStatusWrites(Plan& plan, std::size_t per_cycle, std::size_t& turn) {
  if (per_cycle == 0) return 0;
  auto& writes = plan.other_statuses;
  // Usage statuses first, and all of them: there are few, one per object.
  const auto jobs = std::stable_partition(writes.begin(), writes.end(), [](const StatusWrite& w) {
    return w.kind != Kind::kTrainingJob;
  });
  const auto count = static_cast<std::size_t>(writes.end() - jobs);
  // One more for every job admitted, so that under a steady load the Running
  // statuses of the jobs a cycle admits keep pace with the admissions; and an
  // eighth of those planned, so that a backlog left by a burst drains in a
  // few dozen cycles once the admissions stop.
  const std::size_t budget = per_cycle + plan.admission_statuses.size() + count / kBacklogShare;
  const std::size_t start = turn;
  turn += budget;
  if (count <= budget) return 0;
  // The kept window starts `start` writes in and wraps around, so that a
  // backlog is worked through instead of the first jobs being kept every cycle.
  std::rotate(jobs, jobs + static_cast<std::ptrdiff_t>(start % count), writes.end());
  std::set<std::pair<Kind, std::string>> deferred;
  for (auto it = jobs + static_cast<std::ptrdiff_t>(budget); it != writes.end(); ++it)
    deferred.emplace(it->kind, kube::ObjectKey(it->ns, it->name));
  writes.erase(jobs + static_cast<std::ptrdiff_t>(budget), writes.end());
  std::erase_if(plan.events, [&](const EventNote& note) {
    return deferred.count({note.kind, kube::ObjectKey(note.ns, note.name)}) > 0;
  });
  return count - budget;
}

}  // namespace gpupool::op
