// Choosing victims for a job that does not fit (docs/scheduling.md, "Reclaim"): other
// projects' over-quota work (reclaim), or its own project's lower-priority work
// (in-project preemption). Candidates are ranked by the victim order
// (victim_order.h) and taken in that order until the job fits; then every victim the
// job can do without is given back, so the set is minimal. A single replica compares
// such sets across nodes by the same order. The preemptor only chooses: the cycle
// admits the job and stops the victims, then tells the preemptor (Forget).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "eligibility.h"
#include "node_set.h"
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

class Preemptor {
 public:
  // Whether the job may start once victims of its own project have freed `freed_own`.
  using Accounting = std::function<bool(MilliGpu freed_own)>;
  // A project of the job's queue over its quota, with its preemptible work.
  struct ReclaimSource {
    int project;
    MilliGpu allocated;
    MilliGpu quota;
    VictimSet::const_iterator next, end;
  };

  // `touched`: per job index, admitted or preempted this cycle (hence no victim).
  Preemptor(ClusterState& state, Placer& placer, Eligibility& eligibility,
            const std::vector<char>& touched)
      : state_(state), placer_(placer), eligibility_(eligibility), touched_(touched) {}

  // Reclaim. StartReclaim sets how long running work may have run and still be
  // stopped for the job (0: no limit), for the searches that follow it.
  Seconds StartReclaim(const JobState& job);
  std::vector<ReclaimSource> ReclaimSources(const JobState& job) const;
  // Whether over-quota work about to end by itself makes room for the job.
  bool EndingWorkMakesRoom(int job, int count, const std::vector<ReclaimSource>& sources);
  // The victims that make room for `count` replicas, or none. `admissions`: the
  // cycle's so far (a ranking of candidates holds until the next one).
  std::vector<int> ReclaimVictims(int job, int count, const std::vector<ReclaimSource>& sources,
                                  std::size_t admissions);

  // In-project preemption: whether the project runs preemptible work of lower
  // priority in the job's queue, and the victims among it that make room.
  bool HasLowerPriorityWork(const JobState& job) const;
  std::vector<int> InProjectVictims(int job, int count, const Accounting& accounting);

  // The eligible nodes the victims run on, in order.
  std::vector<int> VictimNodes(const JobState& job, const std::vector<int>& victims);
  // After a victim was stopped: its GPUs are no longer reclaimable.
  void Forget(const JobState& victim);
  // Running jobs per node: the state's own list while it tracks changes, otherwise
  // built on first use. Recount: projects may be over quota again, count anew.
  const std::vector<std::vector<int>>& JobsByNode();
  void Recount() { jobs_by_node_ready_ = false; }
  // The job's project is over its quota, and the job preemptible.
  bool ReclaimableProject(const JobState& job) const;
  static MilliGpu ReplicaGpu(const JobState& job);

 private:
  // Yields the next victim candidate (or -1).
  using VictimSource = std::function<int()>;

  bool VictimAllowed(int victim) const;
  bool ReclaimAllowed(int victim) const;
  Seconds SparedRuntime(const JobState& job) const;
  const std::vector<int>& RankedReclaimCandidates(const JobState& job,
                                                  const std::vector<ReclaimSource>& sources,
                                                  const std::vector<MilliGpu>& allocated,
                                                  std::size_t admissions);
  std::vector<int> SelectVictims(int job, int count, const VictimSource& next,
                                 const Accounting& accounting);
  bool FitsAfterRelease(const JobState& job, int count, const std::vector<int>& victims);
  std::vector<int> ReclaimOnOneNode(int job, const std::vector<MilliGpu>& allocated);
  bool NodeCouldFit(const JobState& job, int node, MilliGpu need);
  void LowerReclaimable(int node, MilliGpu gpu);
  bool CannotBeat(const JobState& job, int node, const std::vector<MilliGpu>& allocated,
                  const VictimCost& best);
  VictimCost CheapestOnNode(int job, int node, const std::vector<MilliGpu>& allocated);
  std::vector<int> VictimsInOrder(const JobState& job, int node, const std::vector<int>& ordered,
                                  const std::vector<MilliGpu>& allocated);
  int SingleVictim(const JobState& job, int node, const std::vector<int>& ordered,
                   const std::vector<MilliGpu>& allocated);
  // Puts `candidates` in the victim order.
  void RankVictims(std::vector<int>& candidates, const std::vector<MilliGpu>& allocated);
  double ProjectOverShare(const JobState& victim, const std::vector<MilliGpu>& allocated) const;
  bool Cheaper(const VictimCost& a, const VictimCost& b) const;  // Per Options::victim_policy.
  bool Cheaper(const LoneVictim& a, const LoneVictim& b) const;

  ClusterState& state_;
  Placer& placer_;
  Eligibility& eligibility_;
  const std::vector<char>& touched_;
  Seconds spared_runtime_ = 0;  // Of the reclaim under way (StartReclaim).

  struct RankedCandidates {
    // Admissions so far, queue, spared runtime, the reclaiming project if over quota.
    using Key = std::tuple<std::size_t, int, Seconds, int>;
    bool valid = false;
    Key key;
    std::vector<int> jobs;
  };
  RankedCandidates ranked_candidates_;
  // In-project candidates of one slot and priority in the victim order, ranked once
  // per cycle: those admitted or preempted since are no victims (VictimAllowed).
  struct RankedGroup {
    std::vector<int> jobs;
    std::size_t first = 0;  // Those before it are no victims any more this cycle.
  };
  std::map<std::pair<std::size_t, int>, RankedGroup> ranked_in_project_;
  std::vector<LoneVictim> ranking_;   // RankVictims' working list, kept between calls.
  std::vector<int> node_candidates_;  // CheapestOnNode's, kept between calls.

  const std::vector<std::vector<int>>* jobs_by_node_ = nullptr;
  std::vector<std::vector<int>> own_jobs_by_node_;
  bool jobs_by_node_ready_ = false;
  // Per project, kept between searches so that they allocate nothing: what a reclaim
  // may count as allocated (ReclaimVictims), what one node's victims take
  // (VictimsInOrder, all zero between calls).
  std::vector<MilliGpu> reclaim_allocated_;
  std::vector<MilliGpu> victim_taken_;
  std::vector<MilliGpu> reclaimable_on_node_;  // Upper bound: GPUs reclaim could free.
  NodeSet reclaim_nodes_;                      // Nodes with reclaimable work.
  int reclaim_cursor_ = 0;
  std::vector<std::uint8_t> exhausted_;  // Per slot: back at quota, offers no more.
};

}  // namespace gpupool::engine::internal
