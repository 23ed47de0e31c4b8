#include "cycle_runs.h"

#include <optional>
#include <vector>

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

void StopVictims(Engine& engine, const Decisions& d) {
  for (const Preemption& p : d.preemptions) engine.VictimGone(p.victim);
}

Engine SettledEngine(const Snapshot& snapshot, Options options) {
  Engine engine(snapshot, std::move(options));
  for (int cycle = 0; cycle < 20; ++cycle) {
    Decisions d = engine.Decide();
    StopVictims(engine, d);
    if (d.admissions.empty() && d.preemptions.empty()) break;
  }
  return engine;
}

Options IncrementalOnly() {
  Options options;
  options.full_cycle_interval_seconds = 60;
  return options;
}

void RunEvents(benchmark::State& state, Engine& engine,
               const std::function<PendingJob(std::uint64_t)>& arrival) {
  std::uint64_t next = 1000000;
  std::size_t finished = 0;
  Snapshot view = engine.ToSnapshot();
  for (auto _ : state) {
    if (next % 2 == 0) {
      engine.AddPending(arrival(next));
    } else if (finished < view.running.size()) {
      engine.Finish(view.running[finished++].name);
    }
    ++next;
    Decisions d = engine.Decide();
    StopVictims(engine, d);
    benchmark::DoNotOptimize(d);
  }
  state.counters["pending"] = static_cast<double>(engine.pending_count());
  state.counters["running"] = static_cast<double>(engine.running_count());
}

void RunNodeChanges(benchmark::State& state, Engine& engine, bool remove) {
  std::vector<Node> nodes = engine.ToSnapshot().nodes;
  std::size_t changes = 0;
  std::size_t admitted = 0;
  for (auto _ : state) {
    Node& node = nodes[(changes / 2 * 37) % nodes.size()];  // Spread over racks.
    bool first = changes++ % 2 == 0;
    if (remove && first) {
      engine.RemoveNode(node.name);
    } else {
      if (!remove) node.schedulable = !first;
      engine.UpsertNode(node);
    }
    Decisions d = engine.Decide();
    StopVictims(engine, d);
    admitted += d.admissions.size();
    benchmark::DoNotOptimize(d);
  }
  state.counters["admitted"] = static_cast<double>(admitted);
}

void RunQuotaChanges(benchmark::State& state, Engine& engine) {
  Snapshot view = engine.ToSnapshot();
  std::vector<Project> projects;
  for (Project& project : view.projects) {
    if (!project.quotas.empty()) projects.push_back(std::move(project));
  }
  std::size_t changes = 0;
  std::size_t admitted = 0;
  std::size_t preempted = 0;
  for (auto _ : state) {
    Project& project = projects[(changes / 2 * 7) % projects.size()];
    project.quotas[0].gpu += changes % 2 == 0 ? 8 * kMilliPerGpu : -8 * kMilliPerGpu;
    ++changes;
    engine.UpsertProject(project);
    Decisions d = engine.Decide();
    StopVictims(engine, d);
    admitted += d.admissions.size();
    preempted += d.preemptions.size();
    benchmark::DoNotOptimize(d);
  }
  state.counters["admitted"] = static_cast<double>(admitted);
  state.counters["preempted"] = static_cast<double>(preempted);
}

}  // namespace gpupool::engine::bench
