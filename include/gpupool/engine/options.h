// How the engine schedules: packing, reservations, incremental cycles and the victim
// policy (docs/scheduling.md), as Engine and Decide (engine.h) take them.
#pragma once

#include <vector>

#include "gpupool/engine/snapshot.h"

namespace gpupool::engine {

// One kind of replica expected to arrive, with its relative frequency. Fractional
// placement keeps free GPU capacity in pieces these shapes can use.
struct WorkloadShape {
  ReplicaShape shape;
  double weight = 1.0;
};

enum class Packing {
  kFragmentationAware,  // Minimize the free capacity expected work could not use.
  kBestFit,             // Plain best-fit: the tightest device / node that fits.
};

// kLeastWorkLost: the victim set that destroys the least work (GPUs x time since
// each victim's last checkpoint) among those that make room. kFewestVictims: the
// earlier rule, kept to compare against: the fewest victims, then the fewest GPUs,
// the youngest first, on the first node where one victim is enough.
enum class VictimPolicy { kLeastWorkLost, kFewestVictims };

struct Options {
  Packing packing = Packing::kFragmentationAware;
  // The shapes fractional packing optimizes for. Empty: learned from the snapshot
  // (running and pending replicas of the pool, each counted once per replica).
  std::vector<WorkloadShape> expected_workload;
  // Whether an in-quota job blocked by capacity holds room so smaller jobs cannot
  // overtake it forever (see docs/scheduling.md, "Reservations").
  bool reserve_for_blocked_jobs = true;
  // Engine only. 0: every Decide() re-examines every pending job. Above 0: Decide()
  // re-examines only the jobs that changes since the last cycle could have let
  // start (see docs/scheduling.md, "Incremental cycles"), and every pending job once
  // this many seconds (of SetNow) have passed since the last full cycle.
  Seconds full_cycle_interval_seconds = 0;
  // How victims are chosen (see docs/scheduling.md, "Reclaim").
  VictimPolicy victim_policy = VictimPolicy::kLeastWorkLost;
};

}  // namespace gpupool::engine
