// Room held for waiting jobs (docs/scheduling.md, "Reservations", "Gangs" and
// "Incremental cycles"): made when a whole-GPU job cannot start, so that smaller jobs
// cannot overtake it forever; topped up as running work ends there; let go when the
// job starts or its room is handed to it. One room per project and queue in quota,
// and one over quota.
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "eligibility.h"
#include "state.h"

namespace gpupool::engine::internal {

class HeldRooms {
 public:
  HeldRooms(ClusterState& state, Eligibility& eligibility)
      : state_(state), eligibility_(eligibility) {}

  // A full cycle holds room anew: nothing is held when it starts.
  void StartFull();
  // An incremental cycle continues from the rooms the last cycle held.
  void Continue();
  // What the next incremental cycle continues from.
  void Remember() { state_.held_rooms = std::move(rooms_); }

  // Whether the job may hold room: the first whole-GPU job of its project and queue
  // to wait in quota (or over it).
  bool MayHold(const JobState& job, bool in_quota) const;
  // Holds room for the job's minimum replicas; returns the GPUs held now.
  MilliGpu Hold(int job, bool in_quota);
  // The job room is held for that a job waiting (in quota or not) must let go first.
  struct Holder {
    int job = -1;
    bool over_quota = false;
  };
  Holder Ahead(const JobState& job, bool in_quota) const;
  // Lets go of the room held for the job, if any: its devices are no longer held,
  // and its project may hold room again. Returns the nodes where room opened.
  std::vector<int> Drop(int job);

  // Incremental cycles. Devices freed where room is held are held too.
  void HoldFreed(const std::vector<int>& released_now);
  // The jobs (not `touched`) whose room, short when held, is free now that work on
  // `released_now` (sorted) ended; each then looks through its own room (TakeFreed).
  std::vector<int> MarkFreed(const std::vector<int>& released_now,
                             const std::vector<char>& touched);
  // Whether the job's freed room is to be let go now it is tried in quota or over it.
  bool TakeFreed(int job, bool in_quota);

  // Nodes holding devices for a waiting job (repeats possible).
  const std::vector<int>& nodes() const { return reserved_nodes_; }
  // Rooms made or let go so far: what fits ignoring them may differ after each.
  std::size_t changes() const { return changes_; }

 private:
  static std::uint8_t Kind(bool in_quota) { return in_quota ? 1 : 2; }
  // The queue's first job room is held for, in quota or over it (-1: none).
  int& FirstHolder(int queue, bool over_quota) {
    return over_quota ? over_quota_holder_[queue] : holder_of_queue_[queue];
  }
  MilliGpu Reserve(int job, int count, bool over_quota);
  // Whole devices free on the node that room held for a job (over quota or not) may
  // take: those not held already.
  int Holdable(int node, bool over_quota) const;
  int RoomiestDomain(const JobState& job, const std::vector<int>*& of_node);

  ClusterState& state_;
  Eligibility& eligibility_;
  std::vector<HeldRoom> rooms_;  // This cycle's, or earlier ones'.
  // Per project and queue: whether room is held in quota (Kind bits) or over it.
  std::vector<std::uint8_t> reserved_in_slot_;
  std::vector<int> holder_of_queue_;    // A job holding room, per queue (or -1).
  std::vector<int> over_quota_holder_;  // Per queue: the first over-quota job room is held for.
  std::vector<int> reserved_nodes_;
  std::size_t changes_ = 0;
  std::unordered_set<int> freed_;  // Set by MarkFreed.
};

}  // namespace gpupool::engine::internal
