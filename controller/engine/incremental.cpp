// Incremental cycles: after a full cycle every waiting job has failed, so only a
// change can let one start. The candidates are the jobs that became pending, the
// jobs of projects whose usage dropped, and, where running work ended, the first
// job of each group that could use the room. Everything else keeps its reason.
#include <algorithm>
#include <utility>

#include "cycle.h"

namespace gpupool::engine::internal {

Decisions Cycle::RunIncremental() {
  incremental_ = true;
  held_rooms_.Continue();
  over_quota_admitted_.assign(state_.queues.size(), 0);
  queued_.assign(state_.jobs.size(), 0);
  ComputeDeserved();
  MarkUnknownStanding();
  // Preemptions change the state again (room on the victims' nodes, projects with
  // less): rounds follow until nothing is left to look at. Victims themselves wait
  // for the next cycle, as they would after a full one.
  std::vector<int> requeued;
  constexpr int kMaxRounds = 64;
  for (int round = 0; round < kMaxRounds; ++round) {
    ClusterState::Changes changes = std::move(state_.changes);
    state_.changes = {};
    std::erase_if(changes.fresh, [&](int job) {
      if (!Touched(job)) return false;
      requeued.push_back(job);
      return true;
    });
    released_now_ = changes.released_nodes;
    std::sort(released_now_.begin(), released_now_.end());
    released_now_.erase(std::unique(released_now_.begin(), released_now_.end()),
                        released_now_.end());
    held_rooms_.HoldFreed(released_now_);
    std::vector<std::vector<int>> lists = Candidates(changes);
    QueueFreedRooms(lists);
    bool any = std::any_of(lists.begin(), lists.end(), [](const auto& l) { return !l.empty(); });
    if (!any && changes.reclaimable_nodes.empty()) break;
    std::size_t admitted_before = decisions_.admissions.size();
    RunPass(lists, true);
    RunPass(lists, false);
    ReclaimFromNewOverQuotaWork(admitted_before, std::move(changes.reclaimable_nodes));
  }
  state_.changes.fresh.insert(state_.changes.fresh.end(), requeued.begin(), requeued.end());
  Finish();
  held_rooms_.Remember();
  return std::move(decisions_);
}

// Work admitted over quota in this cycle can be reclaimed, and so can work of a
// project whose quota was lowered (on `nodes`): a job below its quota that waited
// (in an earlier cycle) for room where that work runs tries again.
void Cycle::ReclaimFromNewOverQuotaWork(std::size_t since, std::vector<int> nodes) {
  for (std::size_t i = since; i < decisions_.admissions.size(); ++i) {
    const Admission& admission = decisions_.admissions[i];
    if (!admission.over_quota) continue;
    for (const Placed& p : state_.jobs[state_.job_index.Find(admission.job)].placed) {
      nodes.push_back(p.node);
    }
  }
  if (nodes.empty()) return;
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  std::vector<int> heads;
  for (const auto& [key, group] : state_.waiting_groups) {
    int head = *group.begin();
    if (!queued_[head]) heads.push_back(head);
  }
  std::sort(heads.begin(), heads.end(), PendingOrder{&state_});
  for (int head : heads) {
    for (int job = head; job >= 0 && !queued_[job] && !Touched(job);) {
      queued_[job] = 1;
      const JobState& j = state_.jobs[job];
      const Queue& queue = state_.queues[j.queue].spec;
      if (queue.sharing != Sharing::kGuaranteed || !queue.reclaim ||
          !IsPreemptible(j.workload_class) || !WithinQuota(j, j.min_replicas, 0)) {
        break;
      }
      bool near = std::any_of(nodes.begin(), nodes.end(),
                              [&](int n) { return n >= 0 && (*Member(j))[n] && Helps(j, n); });
      if (!near || !TryReclaim(job, j.min_replicas)) break;
      auto group = state_.waiting_groups.find(state_.GroupOf(j));
      job = group == state_.waiting_groups.end() ? -1 : *group->second.begin();
    }
  }
}

std::vector<std::vector<int>> Cycle::Candidates(const ClusterState::Changes& changes) {
  std::vector<std::vector<int>> lists(state_.pending.size());
  auto add = [&](int job) {
    const JobState& j = state_.jobs[job];
    if (!j.alive || j.running || queued_[job] || Touched(job)) return;
    queued_[job] = 1;
    if (j.queue < 0) {
      Wait(job, WaitCode::kUnknownQueue, "queue \"" + j.queue_name + "\" does not exist");
      return;
    }
    lists[state_.Slot(j.queue, j.project)].push_back(job);
  };
  for (int job : changes.fresh) add(job);
  std::vector<char> dropped(state_.quotas.size(), 0);
  for (std::size_t slot : changes.dropped_slots) dropped[slot] = 1;
  if (!released_now_.empty() || !changes.dropped_slots.empty()) {
    for (const auto& [key, group] : state_.waiting_groups) {
      int head = *group.begin();
      if (dropped[key >> 32]) {
        add(head);
      } else if (!queued_[head] && HelpedByRelease(state_.jobs[head])) {
        add(head);
        if (queued_[head]) queued_[head] = kForRoom;
      }
    }
  }
  PendingOrder order{&state_};
  for (std::vector<int>& list : lists) std::sort(list.begin(), list.end(), order);
  return lists;
}

bool Cycle::HelpedByRelease(const JobState& job) {
  const std::vector<char>& member = *Member(job);
  return std::any_of(released_now_.begin(), released_now_.end(),
                     [&](int n) { return member[n] && Helps(job, n); });
}

// A job queued only for room that appeared is skipped once earlier jobs have taken
// that room: it keeps the reason it had.
bool Cycle::SkipIncremental(int job) {
  return incremental_ && queued_[job] == kForRoom && !HelpedByRelease(state_.jobs[job]);
}

// Whether one replica of the job could start on the node: it fits now, or would
// once preemptible work there that the job may take the place of is gone.
bool Cycle::Helps(const JobState& job, int node) {
  if (placer_.FitsOne(job, node)) return true;
  MilliGpu room = ClusterState::FreeMilli(state_.nodes[node]);
  for (int v : state_.jobs_on_node[node]) {
    const JobState& victim = state_.jobs[v];
    if (!IsPreemptible(victim.workload_class) || victim.queue != job.queue) continue;
    bool lower_own = victim.project == job.project && victim.priority < job.priority;
    if (lower_own || (victim.project != job.project && preemptor_.ReclaimableProject(victim))) {
      room += Preemptor::ReplicaGpu(victim);
    }
  }
  return room >= job.shape.gpu_milli;
}

// An admitted job leaves its group's next job first in line: it may fit too. It
// goes among the jobs not attempted yet, in order (it may rank before the admitted
// one if it was not a candidate itself).
void Cycle::QueueSuccessor(std::vector<int>& list, std::size_t done, int admitted) {
  auto group = state_.waiting_groups.find(state_.GroupOf(state_.jobs[admitted]));
  if (group == state_.waiting_groups.end()) return;
  int next = *group->second.begin();
  if (queued_[next] || Touched(next)) return;
  queued_[next] = 1;
  auto rest = list.begin() + static_cast<std::ptrdiff_t>(done);
  list.insert(std::upper_bound(rest, list.end(), next, PendingOrder{&state_}), next);
}

// Jobs whose held room is free now go first in their project's list, each looking
// through its own room.
void Cycle::QueueFreedRooms(std::vector<std::vector<int>>& lists) {
  for (int job : held_rooms_.MarkFreed(released_now_, touched_)) {
    bool listed = queued_[job] != 0;
    queued_[job] = 1;  // Not skipped for room others took: its room is its own.
    if (listed) continue;
    const JobState& j = state_.jobs[job];
    std::vector<int>& list = lists[state_.Slot(j.queue, j.project)];
    list.insert(std::upper_bound(list.begin(), list.end(), job, PendingOrder{&state_}), job);
  }
}

}  // namespace gpupool::engine::internal
