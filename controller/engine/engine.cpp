#include "gpupool/engine/engine.h"

#include <algorithm>
#include <optional>

#include "cycle.h"
#include "state.h"

namespace gpupool::engine {

// What an Engine keeps between cycles: the state, and the packing models its cycles
// share.
struct Engine::Kept {
  Kept(const Snapshot& snapshot, Options opts) : state(snapshot, std::move(opts)) {
    if (state.options.full_cycle_interval_seconds > 0) state.EnableTracking();
    // A workload given up front does not change between cycles: score it once.
    if (state.options.packing == Packing::kFragmentationAware &&
        !state.options.expected_workload.empty()) {
      fixed_model.emplace(state.options.expected_workload);
    }
  }
  internal::ClusterState state;
  std::optional<internal::PackingModel> fixed_model;
  // Learned by the last full cycle; incremental cycles reuse it.
  std::optional<internal::PackingModel> learned_model;
  std::optional<Seconds> last_full_cycle;  // Unset until the first cycle, which is full.

  const internal::PackingModel* Model() const {
    if (fixed_model) return &*fixed_model;
    return learned_model ? &*learned_model : nullptr;
  }

  // Whether the next cycle must look at every pending job: incremental cycles are
  // off or not started, the interval has passed, a running job became preemptible, or
  // something changed that they cannot follow.
  bool NeedsFullCycle() const {
    Seconds interval = state.options.full_cycle_interval_seconds;
    if (interval <= 0 || !state.tracking() || state.changes.structure || !last_full_cycle) {
      return true;
    }
    if (state.now - *last_full_cycle >= interval) return true;
    return !state.victim_horizon.empty() && state.victim_horizon.begin()->first <= state.now;
  }
};

Decisions Decide(const Snapshot& snapshot, const Options& options) {
  internal::ClusterState state(snapshot, options);
  return internal::Cycle(state).Run();
}

Engine::Engine(const Snapshot& snapshot, Options options)
    : kept_(std::make_unique<Kept>(snapshot, std::move(options))) {}
Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

void Engine::SetNow(Seconds now) { kept_->state.now = now; }

void Engine::UpsertNode(const Node& node) { kept_->state.UpsertNode(node); }
bool Engine::RemoveNode(std::string_view node) {
  return kept_->state.RemoveNode(std::string(node));
}
void Engine::UpsertQueue(const Queue& queue) { kept_->state.UpsertQueue(queue); }
bool Engine::RemoveQueue(std::string_view queue) {
  return kept_->state.RemoveQueue(std::string(queue));
}
void Engine::UpsertProject(const Project& project) { kept_->state.UpsertProject(project); }
bool Engine::RemoveProject(std::string_view project) {
  return kept_->state.RemoveProject(std::string(project));
}
void Engine::UpsertDepartment(const Department& department) {
  kept_->state.UpsertDepartment(department);
}
bool Engine::RemoveDepartment(std::string_view department) {
  return kept_->state.RemoveDepartment(std::string(department));
}

void Engine::AddPending(const PendingJob& job) { kept_->state.AddPendingReplacing(job); }
bool Engine::UpsertPending(const PendingJob& job) { return kept_->state.UpsertPending(job); }
bool Engine::Finish(std::string_view job) { return kept_->state.RemoveJob(std::string(job)); }
bool Engine::LoseReplica(std::string_view job) {
  return kept_->state.RequeueRunning(std::string(job));
}
bool Engine::UndoAdmission(std::string_view job) {
  return kept_->state.RequeueRunning(std::string(job));
}
bool Engine::VictimGone(std::string_view job) { return kept_->state.VictimGone(std::string(job)); }

void Engine::ForEachJob(const std::function<void(const HeldJob&)>& visit) const {
  for (const internal::JobState& job : kept_->state.jobs) {
    if (!job.alive) continue;
    const Held held =
        job.terminating ? Held::kTerminating : (job.running ? Held::kRunning : Held::kPending);
    visit({job.name, job.uid, held});
  }
}
bool Engine::HoldsExactly(const RunningJob& job) const { return kept_->state.HoldsExactly(job); }
bool Engine::HoldsExactly(const PendingJob& job) const { return kept_->state.HoldsExactly(job); }
bool Engine::Runs(std::string_view job) const {
  const int index = kept_->state.job_index.Find(job);
  return index >= 0 && kept_->state.jobs[index].alive && kept_->state.jobs[index].running;
}
bool Engine::ShownOverQuota(std::string_view job) const {
  return Runs(job) && kept_->state.jobs[kept_->state.job_index.Find(job)].over_quota;
}

Decisions Engine::Decide() {
  if (!kept_->NeedsFullCycle()) {
    return internal::Cycle(kept_->state, kept_->Model()).RunIncremental();
  }
  return DecideAll();
}

Decisions Engine::DecideAll() {
  bool incremental = kept_->state.options.full_cycle_interval_seconds > 0;
  if (incremental) {
    if (!kept_->fixed_model)
      kept_->learned_model.emplace(internal::PackingModel::For(kept_->state));
    // What this cycle changes (victims back in the queue) is for the next one.
    kept_->state.changes = {};
  }
  Decisions decisions = internal::Cycle(kept_->state, kept_->Model()).Run();
  if (incremental) {
    kept_->last_full_cycle = kept_->state.now;
    auto& horizon = kept_->state.victim_horizon;  // Seen by this cycle.
    horizon.erase(horizon.begin(), horizon.lower_bound({kept_->state.now + 1, -1}));
  }
  return decisions;
}

Snapshot Engine::ToSnapshot() const { return kept_->state.ToSnapshot(); }
std::size_t Engine::running_count() const { return kept_->state.running_count; }
std::size_t Engine::pending_count() const { return kept_->state.pending_count; }
std::size_t Engine::terminating_count() const { return kept_->state.terminating_count; }
std::size_t Engine::job_memory_bytes() const { return kept_->state.JobMemoryBytes(); }

}  // namespace gpupool::engine
