#include "full_cycle.h"

#include <optional>

#include "gpupool/engine/engine.h"

namespace gpupool::engine::bench {

void ClusterSizes(benchmark::internal::Benchmark* benchmark) {
  benchmark->Arg(1000)->Arg(5000)->Arg(10000)->Unit(benchmark::kMillisecond);
}

void RunFullCycle(benchmark::State& state, const Snapshot& snapshot, From from) {
  std::size_t admitted = 0;
  std::size_t preempted = 0;
  std::size_t reclaimed = 0;
  for (auto _ : state) {
    std::optional<Engine> engine;
    if (from == From::kKeptState) {
      state.PauseTiming();
      engine.emplace(snapshot);
      state.ResumeTiming();
    }
    Decisions d = engine ? engine->DecideAll() : Decide(snapshot);
    admitted = d.admissions.size();
    preempted = d.preemptions.size();
    reclaimed = 0;
    for (const Preemption& p : d.preemptions) reclaimed += p.reason == PreemptionReason::kReclaim;
    benchmark::DoNotOptimize(d);
    state.PauseTiming();  // Tearing the engine down is not part of the cycle.
    engine.reset();
    state.ResumeTiming();
  }
  state.counters["reclaimed"] = static_cast<double>(reclaimed);
  state.counters["running"] = static_cast<double>(snapshot.running.size());
  state.counters["pending"] = static_cast<double>(snapshot.pending.size());
  state.counters["admitted"] = static_cast<double>(admitted);
  state.counters["preempted"] = static_cast<double>(preempted);
}

}  // namespace gpupool::engine::bench
