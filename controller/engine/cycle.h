// One scheduling cycle over the working state: deserved shares, the in-quota pass,
// the over-quota pass, then reasons and shares. Victims are chosen by the Preemptor
// (preemptor.h), room for waiting jobs is held by HeldRooms (held_rooms.h); the cycle
// orders the steps and admits.
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

#include "eligibility.h"
#include "fair_share.h"
#include "gpupool/engine/decisions.h"
#include "held_rooms.h"
#include "packing.h"
#include "placement.h"
#include "preemptor.h"
#include "state.h"

namespace gpupool::engine::internal {

class Cycle {
 public:
  // `model`: packing model to reuse across cycles (null: built for this cycle).
  explicit Cycle(ClusterState& state, const PackingModel* model = nullptr);
  Decisions Run();
  // Only the jobs the state's recorded changes could have let start; reservations
  // of the last full cycle stand (see docs/scheduling.md, "Incremental cycles").
  Decisions RunIncremental();

 private:
  struct Outcome {
    bool admitted = false;
    bool defer = false;  // Not in quota: try again in the over-quota pass.
  };
  using Accounting = Preemptor::Accounting;

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
  PlaceResult PlaceBest(const JobState& job, int count);
  void Admit(int job, std::vector<Placed> placed, std::vector<int> victims,
             PreemptionReason reason);
  // Preemption (preemption.cpp): the preemptor chooses victims, the cycle admits.
  bool TryReclaim(int job, int count);
  // `mode` tells the accounting apart in the memo of failures.
  bool TryInProject(int job, int count, const Accounting& accounting, char mode);
  bool FinishPreemption(int job, int count, std::vector<int> victims, PreemptionReason reason,
                        bool only_victim_nodes = false);
  // Marks the memo key of a reclaim that spares long-running work (counts stay far
  // below 2^31).
  static constexpr std::uint64_t kSparingMemoBit = std::uint64_t{1} << 31;
  // Marks the memo key of a placement over quota (PlaceBest).
  static constexpr std::uint64_t kOverQuotaMemoBit = std::uint64_t{1} << 30;
  std::unordered_set<int> ending_work_waits_;  // Jobs whose reclaim waits for ending work.
  // Jobs whose reclaim found no victim in a queue that spares long-running work.
  std::unordered_set<int> spared_work_waits_;
  std::unordered_set<std::uint64_t> spared_memos_;  // Their reclaims' memo keys.
  void NoteReclaimWaits();
  void Wait(int job, WaitCode code, std::string message);
  std::vector<int> waiting_jobs_;  // The job of each entry of decisions_.waiting.
  void WaitForCapacity(int job, int count, PlaceFailure failure, bool in_quota);
  bool FitsIgnoringReservations(const JobState& job);
  std::vector<int> ReleasedSince(const JobState& job, std::size_t since);
  void RecordShares();
  void RetryReclaim();
  void Finish();
  // Running jobs added without a standing get one, as the last cycle would have
  // shown it (quota_standing.h), before any victim is chosen.
  void MarkUnknownStanding();
  void ReportStanding();
  std::vector<int> standing_changed_;  // By MarkUnknownStanding: reported with the rest.
  std::vector<std::vector<int>> Candidates(const ClusterState::Changes& changes);
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
  bool SkipIncremental(int job);

  ClusterState& state_;
  PackingModel own_model_;
  const PackingModel& model_;
  Placer placer_;
  Decisions decisions_;
  Eligibility eligibility_;
  const std::vector<int>& Eligible(const JobState& job) { return eligibility_.Nodes(job); }
  const std::vector<char>* Member(const JobState& job) { return eligibility_.Member(job); }
  // Per job index: admitted or preempted this cycle, hence no victim.
  std::vector<char> touched_;
  bool Touched(int job) const { return touched_[static_cast<std::size_t>(job)] != 0; }
  void Touch(int job) { touched_[static_cast<std::size_t>(job)] = 1; }
  HeldRooms held_rooms_;
  Preemptor preemptor_;
  // Lets go of the room held for the job, if any (HeldRooms::Drop).
  void DropRoom(int job);
  // Incremental cycles: jobs whose room, short when held, is free now (released
  // work completed it). Each is looked at in this round, through its own room.
  void QueueFreedRooms(std::vector<std::vector<int>>& lists);
  void OpenFreedRoom(int job, bool in_quota);
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
  // FitsIgnoringReservations by MemoKey: (state version, answer).
  std::unordered_map<std::uint64_t, std::pair<std::size_t, bool>> fits_unreserved_;
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
};

}  // namespace gpupool::engine::internal
