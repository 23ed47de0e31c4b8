// One job's attempt in a pass and the steps it takes, shared by both passes:
// checks, placement, admission, waiting reasons and held room.
#include <algorithm>
#include <map>
#include <tuple>

#include "cycle.h"
#include "reasons.h"

namespace gpupool::engine::internal {

Cycle::Outcome Cycle::Attempt(int job, bool in_quota) {
  if (incremental_) OpenFreedRoom(job, in_quota);
  if (!in_quota) {
    placer_.PlaceOverQuota(true, state_.jobs[job].priority);
    Outcome outcome = AttemptOverQuota(job);
    placer_.PlaceOverQuota(false, 0);
    return outcome;
  }
  if (!Prevalidate(job)) return {};
  const JobState& j = state_.jobs[job];
  if (int count = InQuotaCount(j); count > 0) return AttemptInQuota(job, count);
  const Queue& queue = state_.queues[j.queue].spec;
  const bool may_borrow = queue.sharing == Sharing::kGuaranteed && IsPreemptible(j.workload_class);
  int count = j.min_replicas;
  // Preemptible work in a Guaranteed queue runs over quota (pass 2) where it
  // fits free room, stopping nothing, or where its project has no lower-priority
  // work to stop.
  if (may_borrow && (!preemptor_.HasLowerPriorityWork(j) || !PlaceBest(j, count).replicas.empty()))
    return {false, true};
  // Otherwise its own project's lower-priority jobs may make room for it within
  // quota, before any other project's in-quota work takes what frees up.
  Accounting within = [&](MilliGpu freed) { return WithinQuota(j, count, freed); };
  if (queue.preempt_in_project && TryInProject(job, count, within, 'q')) return {true, false};
  if (may_borrow) return {false, true};
  if (queue.sharing == Sharing::kFixed) {
    Wait(job, WaitCode::kQuota, FixedQuotaReason(state_, j, count));
  } else {
    Wait(job, WaitCode::kQuota, NonPreemptibleQuotaReason(state_, j, count));
  }
  return {};
}

Cycle::Outcome Cycle::AttemptInQuota(int job, int count) {
  const JobState& j = state_.jobs[job];
  const Queue& queue = state_.queues[j.queue].spec;
  PlaceResult placed = PlaceBest(j, count);
  if (!placed.replicas.empty()) {
    Admit(job, std::move(placed.replicas), {}, PreemptionReason::kReclaim);
    return {true, false};
  }
  int minimum = j.min_replicas;
  if (queue.sharing == Sharing::kGuaranteed && queue.reclaim && TryReclaim(job, minimum)) {
    return {true, false};
  }
  Accounting any = [](MilliGpu) { return true; };
  if (queue.preempt_in_project && TryInProject(job, minimum, any, 'a')) return {true, false};
  WaitForCapacity(job, count, placed.failure, true);
  return {};
}

Cycle::Outcome Cycle::AttemptOverQuota(int job) {
  const JobState& j = state_.jobs[job];
  std::size_t slot = state_.Slot(j.queue, j.project);
  const Usage& usage = state_.usage[slot];
  MilliGpu limit = state_.quotas[slot].limit;
  MilliGpu department_room = DepartmentLimitRoom(j);
  auto within_limits = [&](int c) {
    MilliGpu gpu = state_.JobGpu(j, c);
    return usage.gpu + usage.stopping_gpu + gpu <= limit && gpu <= department_room;
  };
  int count = 0;
  for (int c : {j.replicas, j.min_replicas}) {
    if (count == 0 && within_limits(c)) count = c;
  }
  if (count == 0) {
    state_.limited_slots.push_back(slot);  // A larger pool may raise its limit.
    const MilliGpu need = state_.JobGpu(j, j.min_replicas);
    const bool project_blocks = usage.gpu + usage.stopping_gpu + need > limit;
    if (project_blocks ? need > limit : need > DepartmentLimit(j)) {
      Wait(job, WaitCode::kExceedsLimit,
           ExceedsLimitReason(state_, j, j.min_replicas, !project_blocks));
      return {};
    }
    Wait(job, WaitCode::kLimit,
         project_blocks ? LimitReason(state_, j, j.min_replicas)
                        : DepartmentLimitReason(state_, j, j.min_replicas));
    return {};
  }
  PlaceResult placed = PlaceBest(j, count);
  if (!placed.replicas.empty()) {
    over_quota_admitted_[j.queue] = 1;
    Admit(job, std::move(placed.replicas), {}, PreemptionReason::kReclaim);
    return {true, false};
  }
  // Over quota, a job may only take the place of its own project's lower-priority
  // work: the project must not grow.
  MilliGpu need = state_.JobGpu(j, j.min_replicas);
  Accounting swap = [&, need](MilliGpu freed) { return freed >= need; };
  if (state_.queues[j.queue].spec.preempt_in_project &&
      TryInProject(job, j.min_replicas, swap, 's')) {
    return {true, false};
  }
  WaitForCapacity(job, count, placed.failure, false);
  return {};
}

// What the memos key on: the job's interned shape and the replica count.
std::uint64_t Cycle::MemoKey(const JobState& job, int count) {
  return static_cast<std::uint64_t>(state_.shapes.ShapeOf(job)) << 32 |
         static_cast<std::uint32_t>(count);
}

bool Cycle::Prevalidate(int job) {
  const JobState& j = state_.jobs[job];
  if (std::string why = InvalidRequestReason(j); !why.empty()) {
    Wait(job, WaitCode::kInvalidRequest, why);
    return false;
  }
  if (Eligible(j).empty()) {
    Wait(job, WaitCode::kNoMatchingNodes, NoMatchingNodesReason(state_, j));
    return false;
  }
  return true;
}

bool Cycle::WithinQuota(const JobState& job, int count, MilliGpu freed) const {
  std::size_t slot = state_.Slot(job.queue, job.project);
  const QuotaState& quota = state_.quotas[slot];
  const Usage& usage = state_.usage[slot];
  if (usage.gpu + usage.stopping_gpu - freed + state_.JobGpu(job, count) > quota.gpu) return false;
  if (quota.cpu >= 0 && usage.cpu + job.shape.cpu_milli * count > quota.cpu) return false;
  if (quota.memory >= 0 && usage.memory + job.shape.memory_bytes * count > quota.memory) {
    return false;
  }
  return true;
}

int Cycle::InQuotaCount(const JobState& job) const {
  if (WithinQuota(job, job.replicas, 0)) return job.replicas;
  if (WithinQuota(job, job.min_replicas, 0)) return job.min_replicas;
  return 0;
}

// Tries all wanted replicas, then the gang's minimum. A shape that found no room is
// not searched again until something is released.
PlaceResult Cycle::PlaceBest(const JobState& job, int count) {
  PlaceResult result;
  result.failure = PlaceFailure::kCapacity;
  const int counts[] = {count, job.min_replicas};
  const int tries = job.min_replicas < count ? 2 : 1;
  const std::vector<int>& eligible = Eligible(job);
  for (int t = 0; t < tries; ++t) {
    const int c = counts[t];
    // Over quota, less room is open: its failures say nothing of in-quota attempts.
    std::uint64_t key = MemoKey(job, c) | (placer_.over_quota() ? kOverQuotaMemoBit : 0);
    PlaceResult attempt;
    auto failed = failed_shapes_.find(key);
    bool known = failed != failed_shapes_.end() &&
                 (!placer_.over_quota() || job.priority <= failed->second.priority);
    if (!known) {
      attempt = placer_.Place(job, c, eligible, Member(job));
    } else {
      std::vector<int> fresh = ReleasedSince(job, failed->second.released);
      failed->second.released = released_.size();
      if (fresh.empty()) {
        if (failed->second.failure == PlaceFailure::kTopology) {
          result.failure = PlaceFailure::kTopology;
        }
        continue;
      }
      bool local = c == 1;
      attempt = local ? placer_.Place(job, 1, fresh) : placer_.Place(job, c, eligible, Member(job));
    }
    if (!attempt.replicas.empty()) {
      failed_shapes_.erase(key);  // Room appeared: search everywhere next time.
      return attempt;
    }
    if (attempt.failure == PlaceFailure::kTopology) result.failure = PlaceFailure::kTopology;
    failed_shapes_[key] = {released_.size(), attempt.failure, job.priority};
  }
  return result;
}

void Cycle::Admit(int job, std::vector<Placed> placed, std::vector<int> victims,
                  PreemptionReason reason) {
  JobState& j = state_.jobs[job];
  Admission admission;
  admission.job = j.name;
  if (!victims.empty()) admission.message = WaitsForMessage(state_, victims, reason);
  for (int v : victims) {
    const JobState& victim = state_.jobs[v];
    std::string message =
        reason == PreemptionReason::kReclaim ? ReclaimMessage(state_, j) : InProjectMessage(j);
    decisions_.preemptions.push_back({victim.name, reason, j.name, std::move(message)});
    admission.waits_for.push_back(victim.name);
    preemptor_.Forget(victim);
    for (const Placed& p : victim.placed) NoteReleased(p.node);
    // It holds its devices until it is gone: the job takes them over, nobody else
    // gets what the job does not use meanwhile.
    state_.Preempt(v);
    Touch(v);
  }

  DropRoom(job);  // If room was held for it: it is held for nobody now.
  state_.Admit(job, std::move(placed));
  std::size_t slot = state_.Slot(j.queue, j.project);
  admission.over_quota = state_.usage[slot].gpu > state_.quotas[slot].gpu;
  admission.replicas = ExportReplicas(state_, j);
  decisions_.admissions.push_back(std::move(admission));
  Touch(job);
}

void Cycle::DropRoom(int job) {
  // Room opened there: shapes that failed may fit now.
  for (int n : held_rooms_.Drop(job)) released_.push_back(n);
}

void Cycle::OpenFreedRoom(int job, bool in_quota) {
  if (held_rooms_.TakeFreed(job, in_quota)) DropRoom(job);
}

void Cycle::Wait(int job, WaitCode code, std::string message) {
  decisions_.waiting.push_back({state_.jobs[job].name, code, std::move(message)});
  waiting_jobs_.push_back(job);
}

void Cycle::WaitForCapacity(int job, int count, PlaceFailure failure, bool in_quota) {
  const JobState& j = state_.jobs[job];
  if (failure == PlaceFailure::kTopology) {
    Wait(job, WaitCode::kTopology, TopologyReason(j, count));
    return;
  }
  if (in_quota) retry_reclaim_.push_back({job, decisions_.waiting.size(), released_.size()});
  if (held_rooms_.MayHold(j, in_quota)) {
    MilliGpu held = held_rooms_.Hold(job, in_quota);
    Wait(job, WaitCode::kCapacity, CapacityReason(state_, j, count, held));
    return;
  }
  HeldRooms::Holder holder = held_rooms_.Ahead(j, in_quota);
  if (holder.job >= 0 && holder.job != job && FitsIgnoringReservations(j)) {
    // Thousands of jobs wait behind a few held rooms: each sentence is written once.
    std::string& sentence = reserved_sentences_[{holder.job, j.shape.gpu_milli, j.min_replicas}];
    if (sentence.empty()) {
      sentence = ReservedForOtherReason(j, state_.jobs[holder.job], holder.over_quota);
    }
    Wait(job, WaitCode::kReservedForOther, sentence);
    return;
  }
  // The sentence is written at the end of the cycle (with the final free GPUs), once
  // per queue and request: thousands of waiting jobs share a few of them.
  capacity_waits_.push_back({job, count, decisions_.waiting.size()});
  Wait(job, WaitCode::kCapacity, {});
}

// A job whose reclaim waits for over-quota work about to end, or found only work
// its queue spares for having run too long, says so.
void Cycle::NoteReclaimWaits() {
  if (ending_work_waits_.empty() && spared_work_waits_.empty()) return;
  for (std::size_t i = 0; i < decisions_.waiting.size(); ++i) {
    Waiting& w = decisions_.waiting[i];
    if (w.job.empty() || w.code != WaitCode::kCapacity) continue;
    int job = waiting_jobs_[i];
    const Queue& queue = state_.queues[state_.jobs[job].queue].spec;
    if (ending_work_waits_.count(job)) {
      w.message += "; reclaim waits up to " + std::to_string(queue.reclaim_wait_seconds) +
                   " s for over-quota work about to end";
    } else if (spared_work_waits_.count(job)) {
      w.message += "; reclaim stops no over-quota work that has run longer than " +
                   std::to_string(queue.reclaim_max_runtime_seconds) +
                   " s once the project holds " +
                   std::to_string(queue.immediate_guarantee_percent) + " % of its guarantee";
    }
  }
}

void Cycle::WriteCapacityReasons() {
  std::map<std::tuple<int, MilliGpu, int>, std::string> sentences;
  for (const CapacityWait& wait : capacity_waits_) {
    const JobState& j = state_.jobs[wait.job];
    std::string& sentence = sentences[{j.queue, j.shape.gpu_milli, wait.count}];
    if (sentence.empty()) sentence = CapacityReason(state_, j, wait.count, 0);
    decisions_.waiting[wait.waiting_index].message = sentence;
  }
}

// Eligible nodes released since `since` where one replica would fit now.
std::vector<int> Cycle::ReleasedSince(const JobState& job, std::size_t since) {
  const std::vector<char>& member = *Member(job);
  std::vector<int> fresh;
  for (std::size_t i = since; i < released_.size(); ++i) {
    int n = released_[i];
    if (n >= 0 && member[n] && placer_.FitsOne(job, n)) fresh.push_back(n);
  }
  std::sort(fresh.begin(), fresh.end());
  fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
  return fresh;
}

// Whether the job is kept out only by a reservation: one replica would fit on a
// node that holds devices for another job, if they were not held.
// The answer holds for one shape until something is admitted, released or held.
bool Cycle::FitsIgnoringReservations(const JobState& job) {
  std::size_t version = decisions_.admissions.size() + released_.size() + held_rooms_.changes();
  auto [known, added] = fits_unreserved_.try_emplace(MemoKey(job, 1), version, false);
  if (!added && known->second.first == version) return known->second.second;
  const std::vector<char>& member = *Member(job);
  const std::vector<int>& held = held_rooms_.nodes();
  bool fits = std::any_of(held.begin(), held.end(),
                          [&](int n) { return member[n] && placer_.FitsOneUnreserved(job, n); });
  known->second = {version, fits};
  return fits;
}

void Cycle::RecordShares() {
  for (std::size_t q = 0; q < state_.queues.size(); ++q) {
    for (std::size_t p = 0; p < state_.projects.size(); ++p) {
      std::size_t slot = state_.Slot(static_cast<int>(q), static_cast<int>(p));
      const QuotaState& quota = state_.quotas[slot];
      const Usage& usage = state_.usage[slot];
      if (quota.gpu == 0 && usage.gpu == 0 && usage.pending_gpu == 0) continue;
      decisions_.shares.push_back({state_.projects[p].name, state_.queues[q].spec.name, quota.gpu,
                                   quota.deserved, usage.gpu, state_.over_gpu[slot],
                                   usage.pending_gpu});
    }
  }
  RecordDepartmentShares();
}

}  // namespace gpupool::engine::internal
