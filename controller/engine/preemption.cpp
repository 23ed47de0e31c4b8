// Preemption as the cycle carries it out: whether reclaim or in-project preemption
// is tried again (memos of failures), and, once the preemptor (preemptor.h) has
// chosen victims, placing the job where they release room and admitting it.
#include <unordered_map>
#include <utility>

#include "cycle.h"

namespace gpupool::engine::internal {

// Room made by reclaim (Preemptor::ReclaimVictims chooses the victims).
bool Cycle::TryReclaim(int job, int count) {
  const JobState& j = state_.jobs[job];
  // Within one pass, other projects' reclaimable room only shrinks: a shape that
  // found none need not search again. RetryReclaim forgets this and tries again.
  // The memo holds for every project: one that reclaims is below its quota, so its
  // own jobs are never among the candidates and all reclaimers see the same ones.
  // Reclaimers that spare long-running work see fewer candidates: their own memo.
  const Seconds spared_runtime = preemptor_.StartReclaim(j);
  std::uint64_t memo = MemoKey(j, count) | (spared_runtime > 0 ? kSparingMemoBit : 0);
  if (failed_reclaims_.count(memo)) {
    if (spared_memos_.count(memo)) spared_work_waits_.insert(job);
    return false;
  }
  std::vector<Preemptor::ReclaimSource> sources = preemptor_.ReclaimSources(j);
  if (sources.empty()) {
    failed_reclaims_.insert(memo);  // No project is over its quota with work to give.
    return false;
  }
  if (preemptor_.EndingWorkMakesRoom(job, count, sources)) {
    ending_work_waits_.insert(job);
    return false;
  }
  std::vector<int> victims =
      preemptor_.ReclaimVictims(job, count, sources, decisions_.admissions.size());
  // A single replica did not fit anywhere before: only the victims' node gains room.
  if (victims.empty() ||
      !FinishPreemption(job, count, std::move(victims), PreemptionReason::kReclaim, count == 1)) {
    failed_reclaims_.insert(memo);
    if (spared_runtime > 0) {
      spared_memos_.insert(memo);
      spared_work_waits_.insert(job);
    }
    return false;
  }
  return true;
}

// A higher-priority job of the same project and queue takes the place of the
// project's lower-priority preemptible jobs (Preemptor::InProjectVictims).
bool Cycle::TryInProject(int job, int count, const Accounting& accounting, char mode) {
  const JobState& j = state_.jobs[job];
  if (!preemptor_.HasLowerPriorityWork(j)) return false;
  // The project's lower-priority jobs only become fewer, and its usage only grows,
  // until something is released: a failure stands until then.
  // One replica only fits where its victims run: a failure stands until room is
  // released on a node where the project runs.
  InProjectKey memo{MemoKey(j, count), mode, j.project, j.priority};
  std::size_t stamp = count == 1 ? ReleasesNear(j.project) : released_.size();
  auto failed = failed_in_project_.find(memo);
  if (failed != failed_in_project_.end() && failed->second == stamp) return false;
  std::vector<int> victims = preemptor_.InProjectVictims(job, count, accounting);
  if (victims.empty() ||
      !FinishPreemption(job, count, std::move(victims), PreemptionReason::kProjectPriority)) {
    failed_in_project_[memo] = stamp;
    return false;
  }
  return true;
}

// The count is kept from the first question on; before that, no project has seen
// a release it could tell apart.
std::size_t Cycle::ReleasesNear(int project) {
  if (releases_near_.empty()) releases_near_.assign(state_.projects.size(), 0);
  return releases_near_[static_cast<std::size_t>(project)];
}

void Cycle::NoteReleased(int node) {
  released_.push_back(node);
  if (releases_near_.empty() || node < 0) return;
  for (int job : preemptor_.JobsByNode()[node]) ++releases_near_[state_.jobs[job].project];
}

bool Cycle::FinishPreemption(int job, int count, std::vector<int> victims, PreemptionReason reason,
                             bool only_victim_nodes) {
  const JobState& j = state_.jobs[job];
  std::unordered_map<int, std::uint64_t> victim_devices;
  for (int v : victims) {
    for (const Placed& p : state_.jobs[v].placed) {
      state_.Release(state_.jobs[v], p);
      victim_devices[p.node] |= p.devices;
    }
  }
  placer_.Prefer(std::move(victim_devices));
  PlaceResult placed;
  if (only_victim_nodes) {
    placed = placer_.Place(j, count, preemptor_.VictimNodes(j, victims));
  } else {
    placed = placer_.Place(j, count, Eligible(j), Member(j));
  }
  placer_.Prefer({});
  for (int v : victims) {
    for (const Placed& p : state_.jobs[v].placed) state_.Take(state_.jobs[v], p);
  }
  if (placed.replicas.empty()) return false;
  Admit(job, std::move(placed.replicas), std::move(victims), reason);
  return true;
}

}  // namespace gpupool::engine::internal
