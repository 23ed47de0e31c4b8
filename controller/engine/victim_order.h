// The one order in which running work is chosen to stop, for reclaim and for
// in-project preemption alike: single victims are ranked by it, and so are the
// sets of victims that could make room for a job (a job alone is a set of one).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "state.h"

namespace gpupool::engine::internal {

// What stopping a set of victims costs, in the terms the victim order compares.
struct StopCost {
  // Some victim is not of a department over its department quota (never set
  // without departments).
  bool outside_departments_over_quota = false;
  bool some_within_quota = false;  // Some victim is shown within its project's quota.
  int top_priority = std::numeric_limits<int>::min();  // Highest job priority among them.
  std::int64_t work_lost = 0;  // Milli-GPUs x seconds since each victim's last checkpoint.
  MilliGpu gpu = 0;            // GPUs stopped.
  // Allocation / deserved share of the least over-share project among the victims'.
  double least_over_share = std::numeric_limits<double>::infinity();
  Seconds latest_start = std::numeric_limits<Seconds>::min();  // Of the youngest victim.

  // `over_share`: the victim's project's allocation / deserved share.
  void Add(const ClusterState& state, const JobState& victim, double over_share);
};

// A set of victims with its cost; the victims in the tiebreak's order (criterion 7).
struct VictimCost {
  StopCost cost;
  std::vector<int> jobs;

  void Add(const ClusterState& state, int job, double over_share);
  bool empty() const { return jobs.empty(); }
};

// One victim alone: the set of one, kept without a list.
struct LoneVictim {
  StopCost cost;
  int job = -1;
};

// Seconds of work a running job loses if stopped now: none when it saves its state
// on preemption, else since its last checkpoint, or since its start when it
// declares no checkpoint interval.
Seconds SinceCheckpoint(const JobState& job, Seconds now);

// Allocation / deserved share; a project with no deserved share but some
// allocation is infinitely over it.
double OverShare(MilliGpu allocated, MilliGpu deserved);

// The victim order. A set of victims is cheaper to stop than another by, in turn:
//   1. the victims' departments: a set whose victims are all of departments over
//      their department quota first (a project in no department counts as within;
//      without departments every set ties here);
//   2. the victims' standing: a set whose victims are all shown over their
//      project's quota first (quota_standing.h);
//   3. the highest job priority among its victims: lower first;
//   4. the work it destroys: less first (each victim's GPUs x the seconds since its
//      last checkpoint, or since its start when it declares none);
//   5. the GPUs it stops: fewer first;
//   6. the victims' projects: the set whose least over-share project is further over
//      its deserved share first;
//   7. the tiebreak between sets that destroy the same work: the victims compared in
//      order, each the one started last first, then by UID (a name decides only
//      between jobs without UIDs, which no cluster has; never an internal index).
bool CheaperToStop(const ClusterState& state, const VictimCost& a, const VictimCost& b);
// The same order for single victims (sets of one).
bool CheaperToStop(const ClusterState& state, const LoneVictim& a, const LoneVictim& b);
// The same order between running jobs of one project, as a key: criteria 3 to 5 and
// 7 (criteria 1 and 6 tie there, and 2 is the standing this order decides,
// quota_standing.h). `a < b` when `a` is cheaper to stop.
struct InProjectStopKey {
  int priority = 0;
  std::int64_t work_lost = 0;
  MilliGpu gpu = 0;
  Seconds start = 0;
  const std::string* uid = nullptr;
  const std::string* name = nullptr;
  int job = -1;

  static InProjectStopKey Of(const ClusterState& state, int job);
  friend bool operator<(const InProjectStopKey& a, const InProjectStopKey& b);
};

// The earlier order, selectable as VictimPolicy::kFewestVictims so the replay can
// compare the two: 1. as 1 and 2 above; 2. fewer victims; 3. fewer GPUs; 4. lower
// highest priority; 5. the project further over its share; 6. the younger youngest
// victim; 7. as 7 above.
bool FewerVictimsFirst(const ClusterState& state, const VictimCost& a, const VictimCost& b);
bool FewerVictimsFirst(const ClusterState& state, const LoneVictim& a, const LoneVictim& b);

}  // namespace gpupool::engine::internal
