// Engine speed and memory on realistic clusters (realistic_cluster.h): three pools,
// three GPU models, 4- and 8-GPU nodes, fractions to 16-replica gangs, each pool
// filled to the stated share of its GPUs. A cluster that does not reach its fill
// fails the benchmark (SkipWithError) instead of reporting a figure for another.
#include <benchmark/benchmark.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>

#include "cycle_runs.h"
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
const Snapshot* FilledCluster(benchmark::State& state, int nodes, int departments = 0) {
  RealisticSpec spec;
  spec.nodes = nodes;
  spec.fill = kStatedFill;
  spec.departments = departments;
  const RealisticCluster* built = nullptr;
  try {
    built = &Cached(spec);
  } catch (const std::invalid_argument& e) {
    state.SkipWithError(e.what());
    return nullptr;
  }
  const RealisticCluster& cluster = *built;
  std::string shortfall = FillShortfall(cluster, spec.fill);
  if (!shortfall.empty()) {
    state.SkipWithError(shortfall.c_str());
    return nullptr;
  }
  state.counters["fill"] = cluster.Fill();
  state.counters["unplaced"] = cluster.unplaced;
  return &cluster.snapshot;
}

int Nodes(const benchmark::State& state) { return static_cast<int>(state.range(0)); }

// One full cycle on the engine's kept state.
void BM_RealisticFullCycle(benchmark::State& state) {
  if (const Snapshot* cluster = FilledCluster(state, Nodes(state))) {
    RunFullCycle(state, *cluster, From::kKeptState);
  }
}
BENCHMARK(BM_RealisticFullCycle)->Apply(ClusterSizes);

// The same cycle through the pure Decide(snapshot): the state is built first.
void BM_RealisticFullCycleFromSnapshot(benchmark::State& state) {
  if (const Snapshot* cluster = FilledCluster(state, Nodes(state))) {
    RunFullCycle(state, *cluster, From::kSnapshot);
  }
}
BENCHMARK(BM_RealisticFullCycleFromSnapshot)->Apply(ClusterSizes);

// The same with the 200 projects in 20 departments.
void BM_RealisticFullCycleFromSnapshotDepartments(benchmark::State& state) {
  if (const Snapshot* cluster = FilledCluster(state, Nodes(state), 20)) {
    RunFullCycle(state, *cluster, From::kSnapshot);
  }
}
BENCHMARK(BM_RealisticFullCycleFromSnapshotDepartments)->Apply(ClusterSizes);

// Bytes per job the engine holds, counted by the allocator, with the indexes
// incremental cycles keep.
void BM_RealisticMemoryPerJob(benchmark::State& state) {
  const Snapshot* cluster = FilledCluster(state, Nodes(state));
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

// A job like a waiting one of the cluster, under a new name and uid.
PendingJob ArrivalLike(const Snapshot& cluster, std::uint64_t n) {
  PendingJob job = cluster.pending[n % cluster.pending.size()];
  std::string suffix = std::to_string(n);
  job.name.append("-").append(suffix);
  job.uid.append("-").append(suffix);
  job.arrival_time = cluster.now;
  return job;
}

// One arrival (a job like a waiting one) or one completion, each followed by an
// incremental cycle, on the 5,000-node cluster once settled.
void BM_RealisticIncrementalEvent(benchmark::State& state) {
  const Snapshot* cluster = FilledCluster(state, 5000);
  if (cluster == nullptr) return;
  Engine engine = SettledEngine(*cluster, IncrementalOnly());
  RunEvents(state, engine, [&](std::uint64_t n) { return ArrivalLike(*cluster, n); });
}
BENCHMARK(BM_RealisticIncrementalEvent)->Iterations(2000)->Unit(benchmark::kMicrosecond);

// A node cordoned, then uncordoned, + incremental cycle, on the same settled cluster.
void BM_RealisticIncrementalNodeChange(benchmark::State& state) {
  const Snapshot* cluster = FilledCluster(state, 5000);
  if (cluster == nullptr) return;
  Engine engine = SettledEngine(*cluster, IncrementalOnly());
  RunNodeChanges(state, engine, false);
}
BENCHMARK(BM_RealisticIncrementalNodeChange)->Iterations(400)->Unit(benchmark::kMicrosecond);

// A guarantee raised by 8 GPUs, then lowered back, + incremental cycle.
void BM_RealisticIncrementalQuotaChange(benchmark::State& state) {
  const Snapshot* cluster = FilledCluster(state, 5000);
  if (cluster == nullptr) return;
  Engine engine = SettledEngine(*cluster, IncrementalOnly());
  RunQuotaChanges(state, engine);
}
BENCHMARK(BM_RealisticIncrementalQuotaChange)->Iterations(400)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gpupool::engine::bench
