// The scheduling engine: a snapshot goes in, decisions come out. Pure: no I/O, no
// clock (time is Snapshot::now), no threads. The rules are in docs/scheduling.md.
//
//   Decisions d = gpupool::engine::Decide(snapshot, {});
//
// Engine keeps the same state between cycles so that a simulation (or an operator
// fed by watch events) pays only for what changed: the updates below, then
// Decide(), which also applies its own decisions to the state (admitted jobs run;
// victims hold their devices, terminating, until VictimGone(), then wait again with
// their original arrival time). docs/scheduling.md, "Following a live cluster".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/engine/decisions.h"
#include "gpupool/engine/options.h"
#include "gpupool/engine/snapshot.h"

namespace gpupool::engine {

// One full cycle over an immutable snapshot.
Decisions Decide(const Snapshot& snapshot, const Options& options = {});

class Engine {
 public:
  explicit Engine(const Snapshot& snapshot, Options options = {});
  ~Engine();
  Engine(Engine&&) noexcept;
  Engine& operator=(Engine&&) noexcept;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void SetNow(Seconds now);

  // Nodes. Upsert adds a node or changes it in place (labels, model, devices,
  // unmanaged use, cpu, memory, schedulable). A removed node's jobs wait again.
  void UpsertNode(const Node& node);
  bool RemoveNode(std::string_view node);
  // Queues and projects. Jobs of a removed queue wait with kUnknownQueue (running
  // ones keep their devices); jobs of a removed project stay, with quota 0.
  void UpsertQueue(const Queue& queue);
  bool RemoveQueue(std::string_view queue);
  void UpsertProject(const Project& project);
  bool RemoveProject(std::string_view project);
  // Departments: a removed one's projects keep their own quotas, as if they named none.
  void UpsertDepartment(const Department& department);
  bool RemoveDepartment(std::string_view department);

  // Jobs are known by name; a name known with another uid is another job, which
  // replaces it. AddPending ignores a job already known with this uid.
  void AddPending(const PendingJob& job);
  // Adds the job, or gives a pending job of this uid its new spec. False if that job
  // is running or terminating (its spec is not changed).
  bool UpsertPending(const PendingJob& job);
  // A job ended or was deleted, whatever its state; its resources are free.
  // These return false if no job of this name is in the state they need.
  bool Finish(std::string_view job);
  // A replica of a running job was lost: the whole job waits again, devices freed.
  bool LoseReplica(std::string_view job);
  // The operator could not carry out an admission: the job waits again.
  bool UndoAdmission(std::string_view job);
  // A terminating victim's pods have stopped: its devices are free, it waits again.
  bool VictimGone(std::string_view job);

  // Jobs as the engine holds them, for a caller that compares them with the cluster
  // (LiveEngine) without exporting the whole state.
  enum class Held { kPending, kRunning, kTerminating };
  struct HeldJob {
    std::string_view name, uid;
    Held held;
  };
  void ForEachJob(const std::function<void(const HeldJob&)>& visit) const;
  // True if the job is held in that state with exactly these fields (a running
  // job: on exactly these devices; a pending one: with exactly this spec).
  bool HoldsExactly(const RunningJob& job) const;
  bool HoldsExactly(const PendingJob& job) const;
  // Whether the job runs (not stopping), and whether it is shown over its project's
  // quota (false for a job that does not run).
  bool Runs(std::string_view job) const;
  bool ShownOverQuota(std::string_view job) const;
  // Runs one cycle and applies its decisions to the state. An incremental cycle
  // (see Options::full_cycle_interval_seconds) lists in `waiting` only the jobs it
  // re-examined; every other pending job keeps the reason it was last given.
  Decisions Decide();
  // Runs a cycle over every pending job, whatever the interval.
  Decisions DecideAll();

  // The state as a snapshot (running jobs include everything admitted so far, and
  // terminating victims, marked RunningJob::terminating).
  Snapshot ToSnapshot() const;
  std::size_t running_count() const;
  std::size_t pending_count() const;
  std::size_t terminating_count() const;
  // Bytes held for jobs (running and pending), excluding the node tables.
  std::size_t job_memory_bytes() const;

 private:
  struct Kept;  // The state and what its cycles share (engine.cpp).
  std::unique_ptr<Kept> kept_;
};

}  // namespace gpupool::engine
