// Invariants every cycle's decisions must keep, checked independently of the
// engine's own bookkeeping (from the snapshots before and after, and the decisions).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gpupool/engine/engine.h"

namespace gpupool::engine::testing {

// Each project's guarantee per (project, queue), computed here from the rules: as
// given, or, where a department's quota is below its projects' guarantees together,
// each scaled by the same fraction (rounded down to a milli-GPU).
std::map<std::pair<std::string, std::string>, MilliGpu> Guarantees(const Snapshot& s);

// The department invariants (invariants_departments.cpp): guarantees within each
// department's quota, its limit on over-quota work, and its accounting.
void CheckDepartments(const Snapshot& before, const Decisions& decisions, const Snapshot& after,
                      std::vector<std::string>& errors);

// The quota-standing invariants (invariants_standing.cpp): the jobs shown over
// quota are the ones the decisions list, what a project shows within its quota fits
// in it, and a reclaim never stops a job shown within quota while its project runs
// a job shown over quota, no victim, that would free the same room.
void CheckStanding(const Snapshot& before, const Decisions& decisions, const Snapshot& after,
                   std::vector<std::string>& errors);

// Whether `labels` hold every key and value of `selector`.
inline bool SelectorMatches(const Labels& selector, const Labels& labels) {
  for (const auto& [key, value] : selector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}

// Returns one line per violated invariant; empty when all hold.
// `check_reclaim_progress`: also check that an in-quota job of a Guaranteed queue
// never waits for capacity while a single reclaimable over-quota job of another
// project stands in its way, nor (fair share) one of a project above its deserved
// share while its own is below its deserved share (only meaningful when
// reservations are off: held room is not in the snapshot).
std::vector<std::string> CheckInvariants(const Snapshot& before, const Decisions& decisions,
                                         const Snapshot& after, bool check_reclaim_progress);

}  // namespace gpupool::engine::testing
