#include "gpupool/engine/engine.h"

#include <optional>

#include "cycle.h"
#include "state.h"

namespace gpupool::engine {

class EngineState : public internal::EngineState {
 public:
  EngineState(const Snapshot& snapshot, Options opts)
      : internal::EngineState(snapshot, std::move(opts)) {
    // A workload given up front does not change between cycles: score it once.
    if (options.packing == Packing::kFragmentationAware && !options.expected_workload.empty()) {
      fixed_model.emplace(options.expected_workload);
    }
  }
  std::optional<internal::PackingModel> fixed_model;
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

void Engine::AddPending(PendingJob job) { state_->AddPending(job); }

bool Engine::Finish(std::string_view job) {
  auto it = state_->job_index.find(std::string(job));
  if (it == state_->job_index.end()) return false;
  state_->Remove(it->second);
  return true;
}

Decisions Engine::Decide() {
  const internal::PackingModel* model = state_->fixed_model ? &*state_->fixed_model : nullptr;
  return internal::Cycle(*state_, model).Run();
}

Snapshot Engine::ToSnapshot() const { return state_->ToSnapshot(); }
std::size_t Engine::running_count() const { return state_->running_count; }
std::size_t Engine::pending_count() const { return state_->pending_count; }
std::size_t Engine::job_memory_bytes() const { return state_->JobMemoryBytes(); }

}  // namespace gpupool::engine
