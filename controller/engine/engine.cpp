#include "gpupool/engine/engine.h"

#include <algorithm>
#include <optional>

#include "cycle.h"
#include "state.h"

namespace gpupool::engine {

class EngineState : public internal::EngineState {
 public:
  EngineState(const Snapshot& snapshot, Options opts)
      : internal::EngineState(snapshot, std::move(opts)) {
    if (options.full_cycle_interval_seconds > 0) EnableTracking();
    // A workload given up front does not change between cycles: score it once.
    if (options.packing == Packing::kFragmentationAware && !options.expected_workload.empty()) {
      fixed_model.emplace(options.expected_workload);
    }
  }
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
    Seconds interval = options.full_cycle_interval_seconds;
    if (interval <= 0 || !tracking() || changes.structure || !last_full_cycle) return true;
    if (now - *last_full_cycle >= interval) return true;
    return !victim_horizon.empty() && victim_horizon.begin()->first <= now;
  }
};

Decisions Decide(const Snapshot& snapshot, const Options& options) {
  internal::EngineState state(snapshot, options);
  return internal::Cycle(state).Run();
}

Engine::Engine(const Snapshot& snapshot, Options options)
    : state_(std::make_unique<EngineState>(snapshot, std::move(options))) {}
Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

void Engine::SetNow(Seconds now) { state_->now = now; }

void Engine::UpsertNode(const Node& node) { state_->UpsertNode(node); }
bool Engine::RemoveNode(std::string_view node) { return state_->RemoveNode(std::string(node)); }
void Engine::UpsertQueue(const Queue& queue) { state_->UpsertQueue(queue); }
bool Engine::RemoveQueue(std::string_view queue) { return state_->RemoveQueue(std::string(queue)); }
void Engine::UpsertProject(const Project& project) { state_->UpsertProject(project); }
bool Engine::RemoveProject(std::string_view project) {
  return state_->RemoveProject(std::string(project));
}
void Engine::UpsertDepartment(const Department& department) {
  state_->UpsertDepartment(department);
}
bool Engine::RemoveDepartment(std::string_view department) {
  return state_->RemoveDepartment(std::string(department));
}

void Engine::AddPending(const PendingJob& job) { state_->AddPendingReplacing(job); }
bool Engine::UpsertPending(const PendingJob& job) { return state_->UpsertPending(job); }
bool Engine::Finish(std::string_view job) { return state_->RemoveJob(std::string(job)); }
bool Engine::LoseReplica(std::string_view job) { return state_->RequeueRunning(std::string(job)); }
bool Engine::UndoAdmission(std::string_view job) {
  return state_->RequeueRunning(std::string(job));
}
bool Engine::VictimGone(std::string_view job) { return state_->VictimGone(std::string(job)); }

void Engine::ForEachJob(const std::function<void(const HeldJob&)>& visit) const {
  for (const internal::JobState& job : state_->jobs) {
    if (!job.alive) continue;
    const Held held =
        job.terminating ? Held::kTerminating : (job.running ? Held::kRunning : Held::kPending);
    visit({job.name, job.uid, held});
  }
}
bool Engine::HoldsExactly(const RunningJob& job) const { return state_->HoldsExactly(job); }
bool Engine::HoldsExactly(const PendingJob& job) const { return state_->HoldsExactly(job); }
bool Engine::Runs(std::string_view job) const {
  const int index = state_->job_index.Find(job);
  return index >= 0 && state_->jobs[index].alive && state_->jobs[index].running;
}
bool Engine::ShownOverQuota(std::string_view job) const {
  return Runs(job) && state_->jobs[state_->job_index.Find(job)].over_quota;
}

Decisions Engine::Decide() {
  if (!state_->NeedsFullCycle()) {
    return internal::Cycle(*state_, state_->Model()).RunIncremental();
  }
  return DecideAll();
}

Decisions Engine::DecideAll() {
  bool incremental = state_->options.full_cycle_interval_seconds > 0;
  if (incremental) {
    if (!state_->fixed_model) state_->learned_model.emplace(internal::PackingModel::For(*state_));
    // What this cycle changes (victims back in the queue) is for the next one.
    state_->changes = {};
  }
  Decisions decisions = internal::Cycle(*state_, state_->Model()).Run();
  if (incremental) {
    state_->last_full_cycle = state_->now;
    auto& horizon = state_->victim_horizon;  // Seen by this cycle.
    horizon.erase(horizon.begin(), horizon.lower_bound({state_->now + 1, -1}));
  }
  return decisions;
}

Snapshot Engine::ToSnapshot() const { return state_->ToSnapshot(); }
std::size_t Engine::running_count() const { return state_->running_count; }
std::size_t Engine::pending_count() const { return state_->pending_count; }
std::size_t Engine::terminating_count() const { return state_->terminating_count; }
std::size_t Engine::job_memory_bytes() const { return state_->JobMemoryBytes(); }

}  // namespace gpupool::engine
