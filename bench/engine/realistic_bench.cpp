// Engine speed and memory on realistic clusters (realistic_cluster.h): three pools,
// three GPU models, 4- and 8-GPU nodes, fractions to 16-replica gangs, each pool
// filled to the stated share of its GPUs. A cluster that does not reach its fill
// fails the benchmark (SkipWithError) instead of reporting a figure for another.
#include <benchmark/benchmark.h>

#include <memory>
#include <tuple>

#include "full_cycle.h"
#include "gpupool/engine/engine.h"
#include "job_memory.h"
#include "realistic_cluster.h"

namespace gpupool::engine::bench {
namespace {

// Every realistic benchmark states this fill and checks it at every size.
constexpr double kStatedFill = 0.90;

// The last cluster built, kept for the repetitions of one benchmark.
const RealisticCluster& Cached(const RealisticSpec& spec) {
  static std::unique_ptr<RealisticCluster> cluster;
  static RealisticSpec built;
  auto key = [](const RealisticSpec& s) {
    return std::tie(s.nodes, s.fill, s.projects, s.departments, s.pending_per_node, s.seed);
  };
  if (!cluster || key(built) != key(spec)) {
    cluster.reset();
    cluster = std::make_unique<RealisticCluster>(BuildRealisticCluster(spec));
    built = spec;
  }
  return *cluster;
}

// The cluster of `nodes` at the stated fill, or null after failing the benchmark.
const Snapshot* FilledCluster(benchmark::State& state, int departments = 0) {
  RealisticSpec spec;
  spec.nodes = static_cast<int>(state.range(0));
  spec.fill = kStatedFill;
  spec.departments = departments;
  const RealisticCluster& cluster = Cached(spec);
  std::string shortfall = FillShortfall(cluster, spec.fill);
  if (!shortfall.empty()) {
    state.SkipWithError(shortfall.c_str());
    return nullptr;
  }
  state.counters["fill"] = cluster.Fill();
  state.counters["unplaced"] = cluster.unplaced;
  return &cluster.snapshot;
}

// One full cycle on the engine's kept state.
void BM_RealisticFullCycle(benchmark::State& state) {
  if (const Snapshot* cluster = FilledCluster(state)) {
    RunFullCycle(state, *cluster, From::kKeptState);
  }
}
BENCHMARK(BM_RealisticFullCycle)->Apply(ClusterSizes);

// The same cycle through the pure Decide(snapshot): the state is built first.
void BM_RealisticFullCycleFromSnapshot(benchmark::State& state) {
  if (const Snapshot* cluster = FilledCluster(state)) {
    RunFullCycle(state, *cluster, From::kSnapshot);
  }
}
BENCHMARK(BM_RealisticFullCycleFromSnapshot)->Apply(ClusterSizes);

// The same with the 200 projects in 20 departments.
void BM_RealisticFullCycleFromSnapshotDepartments(benchmark::State& state) {
  if (const Snapshot* cluster = FilledCluster(state, 20)) {
    RunFullCycle(state, *cluster, From::kSnapshot);
  }
}
BENCHMARK(BM_RealisticFullCycleFromSnapshotDepartments)->Apply(ClusterSizes);

// Bytes per job the engine holds, counted by the allocator, with the indexes
// incremental cycles keep.
void BM_RealisticMemoryPerJob(benchmark::State& state) {
  const Snapshot* cluster = FilledCluster(state);
  if (cluster == nullptr) return;
  Options options;
  options.full_cycle_interval_seconds = 60;
  JobMemory measured;
  for (auto _ : state) measured = MeasureJobMemory(*cluster, options);
  state.counters["bytes_per_job"] = measured.built;
  state.counters["bytes_per_job_after_cycle"] = measured.after_cycle;
  state.counters["jobs"] = static_cast<double>(cluster->running.size() + cluster->pending.size());
}
BENCHMARK(BM_RealisticMemoryPerJob)->Apply(ClusterSizes)->Iterations(1);

}  // namespace
}  // namespace gpupool::engine::bench
