// One scheduling cycle over the working state: deserved shares, the in-quota pass,
// the over-quota pass, reclaim and in-project preemption, reservations, reasons.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fair_share.h"
#include "gpupool/engine/decisions.h"
#include "packing.h"
#include "placement.h"
#include "state.h"
#include "victim_order.h"

namespace gpupool::engine::internal {

// Search caps of victim selection (docs/scheduling.md, "Reclaim"). A single replica
// compares the victim sets of at most this many nodes where room can be made.
inline constexpr int kReclaimNodesCompared = 64;
inline constexpr int kFewestVictimsNodesCompared = 8;  // VictimPolicy::kFewestVictims.
// A gang stops looking once this many victims have not made room for it: it would
// need a mass eviction, and waits instead.
inline constexpr std::size_t GangVictimCap(int replicas) {
  return static_cast<std::size_t>(replicas) * 16 + 16;
}

class Cycle {
 public:
  // `model`: packing model to reuse across cycles (null: built for this cycle).
  explicit Cycle(EngineState& state, const PackingModel* model = nullptr);
  Decisions Run();
  // Only the jobs the state's recorded changes could have let start; reservations
  // of the last full cycle stand (see docs/scheduling.md, "Incremental cycles").
  Decisions RunIncremental();

 private:
  struct Outcome {
    bool admitted = false;
    bool defer = false;  // Not in quota: try again in the over-quota pass.
  };
  // Yields the next victim candidate (or -1), and whether taking it is allowed.
  using VictimSource = std::function<int()>;
  using Accounting = std::function<bool(MilliGpu freed_own)>;

  void ComputeDeserved();
  std::vector<MilliGpu> ShareOut(int queue, const std::vector<ShareRequest>& requests) const;
  // Departments (cycle_departments.cpp). The slot's department (if any) uses less
  // than its quota in the slot's queue.
  bool DepartmentBelowQuota(std::size_t slot) const;
  // GPUs the job's department may still take over quota (its limit less its use).
  MilliGpu DepartmentLimit(const JobState& job) const;  // max when it has none
  MilliGpu DepartmentLimitRoom(const JobState& job) const;
  void RecordDepartmentShares();
  double DominantShare(std::size_t slot) const;
  std::vector<std::vector<int>> CollectPending();
  void RunPass(std::vector<std::vector<int>>& lists, bool in_quota);
  Outcome Attempt(int job, bool in_quota);
  Outcome AttemptInQuota(int job, int count);
  Outcome AttemptOverQuota(int job);
  bool Prevalidate(int job);
  int InQuotaCount(const JobState& job) const;
  bool WithinQuota(const JobState& job, int count, MilliGpu freed) const;
  const std::vector<int>& Eligible(const JobState& job);
  PlaceResult PlaceBest(const JobState& job, int count);
  void Admit(int job, std::vector<Placed> placed, std::vector<int> victims,
             PreemptionReason reason);
  bool TryReclaim(int job, int count);
  struct ReclaimSource {
    int project;
    MilliGpu allocated;
    MilliGpu quota;
    VictimSet::const_iterator next, end;
  };
  std::vector<ReclaimSource> ReclaimSources(const JobState& job) const;
  const std::vector<int>& RankedReclaimCandidates(const JobState& job,
                                                  const std::vector<ReclaimSource>& sources,
                                                  const std::vector<MilliGpu>& allocated);
  struct RankedCandidates {
    // Admissions so far, queue, spared runtime, the reclaiming project if over quota.
    using Key = std::tuple<std::size_t, int, Seconds, int>;
    bool valid = false;
    Key key;
    std::vector<int> jobs;
  };
  RankedCandidates ranked_candidates_;
  // `mode` tells the accounting apart in the memo of failures.
  bool TryInProject(int job, int count, const Accounting& accounting, char mode);
  // Its project runs preemptible work of lower priority in its queue.
  bool HasLowerPriorityWork(const JobState& job) const;
  std::vector<int> SelectVictims(int job, int count, const VictimSource& next,
                                 const Accounting& accounting);
  bool VictimAllowed(int victim) const;
  bool ReclaimAllowed(int victim) const;
  Seconds SparedRuntime(const JobState& job) const;
  Seconds spared_runtime_ = 0;  // Of the reclaim under way (SparedRuntime).
  // Marks the memo key of a reclaim that spares long-running work (counts stay far
  // below 2^31).
  static constexpr std::uint64_t kSparingMemoBit = std::uint64_t{1} << 31;
  // Marks the memo key of a placement over quota (PlaceBest).
  static constexpr std::uint64_t kOverQuotaMemoBit = std::uint64_t{1} << 30;
  std::vector<int> ReclaimOnOneNode(int job, const std::vector<MilliGpu>& allocated);
  bool NodeCouldFit(const JobState& job, int node, MilliGpu need);
  MilliGpu ReplicaGpu(const JobState& job) const;
  bool ReclaimableProject(const JobState& job) const;
  void ForgetReclaimable(const JobState& victim);
  void LowerReclaimable(int node, MilliGpu gpu);
  VictimCost CheapestOnNode(int job, int node, const std::vector<MilliGpu>& allocated);
  std::vector<int> VictimsInOrder(const JobState& job, int node, const std::vector<int>& ordered,
                                  const std::vector<MilliGpu>& allocated);
  // Puts `candidates` in the victim order.
  void RankVictims(std::vector<int>& candidates, const std::vector<MilliGpu>& allocated);
  std::vector<LoneVictim> ranking_;   // RankVictims' working list, kept between calls.
  std::vector<int> node_candidates_;  // CheapestOnNode's, kept between calls.
  double ProjectOverShare(const JobState& victim, const std::vector<MilliGpu>& allocated) const;
  bool Cheaper(const VictimCost& a, const VictimCost& b) const;  // Per Options::victim_policy.
  bool Cheaper(const LoneVictim& a, const LoneVictim& b) const;
  // In-project candidates of one slot and priority in the victim order, ranked once
  // per cycle: those admitted or preempted since are no victims (VictimAllowed).
  struct RankedGroup {
    std::vector<int> jobs;
    std::size_t first = 0;  // Those before it are no victims any more this cycle.
  };
  std::map<std::pair<std::size_t, int>, RankedGroup> ranked_in_project_;
  bool CannotBeat(const JobState& job, int node, const std::vector<MilliGpu>& allocated,
                  const VictimCost& best);
  bool EndingWorkMakesRoom(int job, int count, const std::vector<ReclaimSource>& sources);
  std::unordered_set<int> ending_work_waits_;  // Jobs whose reclaim waits for ending work.
  // Jobs whose reclaim found no victim in a queue that spares long-running work.
  std::unordered_set<int> spared_work_waits_;
  std::unordered_set<std::uint64_t> spared_memos_;  // Their reclaims' memo keys.
  void NoteReclaimWaits();
  int SingleVictim(const JobState& job, int node, const std::vector<int>& ordered,
                   const std::vector<MilliGpu>& allocated);
  const std::vector<std::vector<int>>& JobsByNode();
  bool FitsAfterRelease(const JobState& job, int count, const std::vector<int>& victims);
  bool FinishPreemption(int job, int count, std::vector<int> victims, PreemptionReason reason,
                        bool only_victim_nodes = false);
  std::vector<int> VictimNodes(const JobState& job, const std::vector<int>& victims);
  void Wait(int job, WaitCode code, std::string message);
  std::vector<int> waiting_jobs_;  // The job of each entry of decisions_.waiting.
  void WaitForCapacity(int job, int count, PlaceFailure failure, bool in_quota);
  // Whether the job may hold room: the first whole-GPU job of its project and queue to
  // wait in quota (or over it).
  bool MayHoldRoom(const JobState& job, bool in_quota) const;
  static std::uint8_t HeldKind(bool in_quota) { return in_quota ? 1 : 2; }
  // The queue's first job room is held for, in quota or over it (-1: none).
  int& FirstHolder(int queue, bool over_quota) {
    return over_quota ? over_quota_holder_[queue] : holder_of_queue_[queue];
  }
  bool FitsIgnoringReservations(const JobState& job);
  std::vector<int> ReleasedSince(const JobState& job, std::size_t since);
  MilliGpu Reserve(int job, int count, bool over_quota);
  // Whole devices free on the node that room held for a job (over quota or not) may
  // take: those not held already.
  int Holdable(int node, bool over_quota) const;
  int RoomiestDomain(const JobState& job, const std::vector<int>*& of_node);
  void RecordShares();
  void RetryReclaim();
  void Finish();
  // Running jobs added without a standing get one, as the last cycle would have
  // shown it (quota_standing.h), before any victim is chosen.
  void MarkUnknownStanding();
  void ReportStanding();
  std::vector<int> standing_changed_;  // By MarkUnknownStanding: reported with the rest.
  void RememberReservations();
  std::vector<std::vector<int>> Candidates(const EngineState::Changes& changes);
  bool Helps(const JobState& job, int node);
  // Admissions from index `since`, and `nodes` where work became reclaimable.
  void ReclaimFromNewOverQuotaWork(std::size_t since, std::vector<int> nodes);
  // `done`: how many jobs of `list` were attempted already.
  void QueueSuccessor(std::vector<int>& list, std::size_t done, int admitted);
  bool incremental_ = false;
  // Per job index: 0, or a candidate this cycle (kForRoom: only because room
  // appeared on released_now_).
  std::vector<char> queued_;
  static constexpr char kForRoom = 2;
  std::vector<int> released_now_;  // Nodes released before this round, sorted.
  bool HelpedByRelease(const JobState& job);
  void HoldFreedRoom();
  bool SkipIncremental(int job);

  EngineState& state_;
  PackingModel own_model_;
  const PackingModel& model_;
  Placer placer_;
  Decisions decisions_;
  const std::vector<char>* Member(const JobState& job);
  const EngineState::EligibleSet& EligibleOf(const JobState& job);
  // SelectorMatches by queue and (interned) selector, for this cycle's new eligible sets.
  std::map<std::pair<int, const Labels*>, std::vector<char>> selector_matches_;
  // Per job index: admitted or preempted this cycle, hence no victim.
  std::vector<char> touched_;
  bool Touched(int job) const { return touched_[static_cast<std::size_t>(job)] != 0; }
  void Touch(int job) { touched_[static_cast<std::size_t>(job)] = 1; }
  // Per project and queue: whether room is held in quota (HeldKind bits) or over it.
  std::vector<std::uint8_t> reserved_in_slot_;
  std::vector<int> holder_of_queue_;    // A job holding room, per queue (or -1).
  std::vector<int> over_quota_holder_;  // Per queue: the first over-quota job room is held for.
  std::vector<HeldRoom> rooms_;         // Room held for waiting jobs (this cycle, or earlier ones).
  void ContinueReservations();
  // Lets go of the room held for the job, if any: its devices are no longer held,
  // and its project may hold room again.
  void DropRoom(int job);
  // Incremental cycles: jobs whose room, short when held, is free now (released
  // work completed it). Each is looked at in this round, through its own room.
  void QueueFreedRooms(std::vector<std::vector<int>>& lists);
  void OpenFreedRoom(int job, bool in_quota);
  std::unordered_set<int> freed_rooms_;  // Set by QueueFreedRooms.
  // In-quota jobs that waited for room in the first pass (job, index in waiting):
  // over-quota admissions of the second pass may have made room reclaimable.
  struct Retry {
    int job;
    std::size_t waiting_index;
    std::size_t released_then;  // Length of released_ when it gave up.
  };
  std::vector<Retry> retry_reclaim_;
  // Shapes that found no room, with the length of `released_` at that moment: only
  // nodes released since then (by preemption) can have room for them now. Over quota,
  // room held against lower priority is open to higher: a failure holds for jobs of
  // the same or lower priority only.
  struct FailedShape {
    std::size_t released;
    PlaceFailure failure;
    int priority;
  };
  std::unordered_map<std::uint64_t, FailedShape> failed_shapes_;
  std::vector<int> reserved_nodes_;  // Nodes holding devices for a blocked job.
  // FitsIgnoringReservations by MemoKey: (state version, answer).
  std::unordered_map<std::uint64_t, std::pair<std::size_t, bool>> fits_unreserved_;
  std::size_t reservations_made_ = 0;
  // ReservedForOther sentences by (holder, GPUs per replica, minimum replicas).
  std::map<std::tuple<int, MilliGpu, int>, std::string> reserved_sentences_;
  std::vector<int> released_;
  std::unordered_set<std::uint64_t> failed_reclaims_;              // By MemoKey.
  using InProjectKey = std::tuple<std::uint64_t, char, int, int>;  // Memo, mode, project, priority.
  std::map<InProjectKey, std::size_t> failed_in_project_;
  // Per project: releases so far on nodes where it runs (counted once tracked).
  std::vector<std::size_t> releases_near_;
  std::size_t ReleasesNear(int project);
  void NoteReleased(int node);
  std::vector<std::uint8_t> over_quota_admitted_;  // Per queue, in the second pass.
  std::uint64_t MemoKey(const JobState& job, int count);
  struct CapacityWait {
    int job;
    int count;
    std::size_t waiting_index;
  };
  std::vector<CapacityWait> capacity_waits_;
  void WriteCapacityReasons();
  // Running jobs per node: the state's own list while it tracks changes, otherwise
  // built on the first reclaim.
  const std::vector<std::vector<int>>* jobs_by_node_ = nullptr;
  std::vector<std::vector<int>> own_jobs_by_node_;
  bool jobs_by_node_ready_ = false;
  // Per project, kept between searches so that they allocate nothing: what a reclaim
  // may count as allocated (TryReclaim), what one node's victims take (VictimsInOrder,
  // all zero between calls).
  std::vector<MilliGpu> reclaim_allocated_;
  std::vector<MilliGpu> victim_taken_;
  std::vector<MilliGpu> reclaimable_on_node_;  // Upper bound: GPUs reclaim could free.
  NodeSet reclaim_nodes_;                      // Nodes with reclaimable work.
  int reclaim_cursor_ = 0;
  std::vector<std::uint8_t> exhausted_;  // Per slot: back at quota, offers no more.
};

}  // namespace gpupool::engine::internal
