// The scheduling engine: a snapshot goes in, decisions come out. Pure: no I/O, no
// clock (time is Snapshot::now), no threads. The rules are in docs/scheduling.md.
//
//   Decisions d = gpupool::engine::Decide(snapshot, {});
//
// Engine keeps the same state between cycles so that a simulation (or an operator
// fed by watch events) pays only for what changed: AddPending / Finish / SetNow,
// then Decide(), which also applies its own decisions to the state (admitted jobs
// run, victims go back to pending with their original arrival time).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/engine/decisions.h"
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
};

// One full cycle over an immutable snapshot.
Decisions Decide(const Snapshot& snapshot, const Options& options = {});

class EngineState;  // Internal.

class Engine {
 public:
  explicit Engine(const Snapshot& snapshot, Options options = {});
  ~Engine();
  Engine(Engine&&) noexcept;
  Engine& operator=(Engine&&) noexcept;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void SetNow(Seconds now);
  // A new job waits in its queue. A job with a name already known is ignored.
  void AddPending(PendingJob job);
  // A running job ended (or a pending one was deleted); its resources are free.
  // Returns false if no job has this name.
  bool Finish(std::string_view job);
  // Runs one cycle and applies its decisions to the state. An incremental cycle
  // (see Options::full_cycle_interval_seconds) lists in `waiting` only the jobs it
  // re-examined; every other pending job keeps the reason it was last given.
  Decisions Decide();
  // Runs a cycle over every pending job, whatever the interval.
  Decisions DecideAll();

  // The state as a snapshot (running jobs include everything admitted so far).
  Snapshot ToSnapshot() const;
  std::size_t running_count() const;
  std::size_t pending_count() const;
  // Bytes held for jobs (running and pending), excluding the node tables.
  std::size_t job_memory_bytes() const;

 private:
  std::unique_ptr<EngineState> state_;
};

}  // namespace gpupool::engine
