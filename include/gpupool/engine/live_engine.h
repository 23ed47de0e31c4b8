// The engine kept across controller cycles. Each cycle's snapshot (derived from API
// state, the truth) is compared with what the engine holds, and only the
// differences are applied (Upsert*/Remove*, Finish, UndoAdmission, VictimGone), so
// a cycle costs what changed instead of a rebuild. Where the engine cannot follow
// a difference in place (a running job the engine does not know, or one whose
// placement or spec changed under it), it is rebuilt from the snapshot.
// docs/scheduling.md, "Following a live cluster".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>

#include "gpupool/engine/engine.h"

namespace gpupool::engine {

struct LiveEngineStats {
  std::uint64_t rebuilds = 0;  // Engines built from a snapshot (the first included).
  std::uint64_t synced = 0;    // Cycles that followed the snapshot in place.
  std::uint64_t updates = 0;   // Engine updates applied by those cycles.
};

class LiveEngine {
 public:
  // `options.full_cycle_interval_seconds` sets how often every waiting job is
  // looked at again; between those, cycles look only at what changes could start.
  explicit LiveEngine(Options options);

  // The engine brought to `snapshot`, then one cycle.
  Decisions Decide(const Snapshot& snapshot);

  const LiveEngineStats& stats() const { return stats_; }
  // The engine's state (tests compare it with the snapshot it followed).
  Snapshot State() const;

 private:
  bool Follow(const Snapshot& snapshot);
  // Lists again, in `decisions`, the standing of each running job the snapshot
  // shows otherwise than the engine holds (a status write that failed).
  void RestateStanding(Decisions& decisions) const;
  std::unordered_set<std::string> LeaveFinished(const Snapshot& snapshot);

  Options options_;
  std::optional<Engine> engine_;
  Snapshot config_;  // Nodes, queues, projects and departments last given to the engine.
  LiveEngineStats stats_;
  std::vector<std::string> misstated_;  // Found by Follow for RestateStanding.
};

}  // namespace gpupool::engine
