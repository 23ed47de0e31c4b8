// Engine speed on the uniform synthetic clusters (synthetic_cluster.h): a full cycle,
// reclaim at scale, and one event on a loaded cluster with the incremental Engine.
// The realistic clusters' benchmarks are in realistic_bench.cpp, in this program. Run:
//   build/bench/engine/engine_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <vector>

#include "cycle_runs.h"
#include "gpupool/engine/engine.h"
#include "gpupool/engine/live_engine.h"
#include "job_memory.h"
#include "synthetic_cluster.h"

namespace gpupool::engine::bench {
namespace {

// Work spread evenly over the projects: one full cycle on the engine's kept state.
void BM_FullCycle(benchmark::State& state) {
  ClusterSpec spec;
  spec.nodes = static_cast<int>(state.range(0));
  RunFullCycle(state, SyntheticCluster(spec), From::kKeptState);
}
BENCHMARK(BM_FullCycle)->Apply(ClusterSizes);

// The same cycle through the pure Decide(snapshot): the state is built first.
void BM_FullCycleFromSnapshot(benchmark::State& state) {
  ClusterSpec spec;
  spec.nodes = static_cast<int>(state.range(0));
  RunFullCycle(state, SyntheticCluster(spec), From::kSnapshot);
}
BENCHMARK(BM_FullCycleFromSnapshot)->Apply(ClusterSizes);

// The same with the 200 projects in 20 departments (quotas scaled into theirs, limits,
// weights): the two-level fair share, department order and limits at work.
void BM_FullCycleFromSnapshotDepartments(benchmark::State& state) {
  ClusterSpec spec;
  spec.nodes = static_cast<int>(state.range(0));
  spec.departments = 20;
  RunFullCycle(state, SyntheticCluster(spec), From::kSnapshot);
}
BENCHMARK(BM_FullCycleFromSnapshotDepartments)->Apply(ClusterSizes);

// A fifth of the projects far over quota, in 20 departments: reclaim ordered by
// department.
void BM_FullCycleReclaimStormDepartments(benchmark::State& state) {
  ClusterSpec spec;
  spec.nodes = static_cast<int>(state.range(0));
  spec.skewed = true;
  spec.departments = 20;
  RunFullCycle(state, SyntheticCluster(spec), From::kKeptState);
}
BENCHMARK(BM_FullCycleReclaimStormDepartments)->Apply(ClusterSizes);

// A fifth of the projects hold 80 % of the running work: the cycle reclaims
// thousands of jobs for the others.
void BM_FullCycleReclaimStorm(benchmark::State& state) {
  ClusterSpec spec;
  spec.nodes = static_cast<int>(state.range(0));
  spec.skewed = true;
  RunFullCycle(state, SyntheticCluster(spec), From::kKeptState);
}
BENCHMARK(BM_FullCycleReclaimStorm)->Apply(ClusterSizes);

// The engine after cycles on the synthetic cluster until one changes nothing.
Engine SettledSynthetic(const ClusterSpec& spec, Options options = {}) {
  return SettledEngine(SyntheticCluster(spec), std::move(options));
}

// The storm's cluster once settled: a full cycle that re-examines every waiting job
// and finds nothing to change.
void BM_FullCycleSettled(benchmark::State& state) {
  ClusterSpec spec;
  spec.nodes = static_cast<int>(state.range(0));
  spec.skewed = true;
  RunFullCycle(state, SettledSynthetic(spec).ToSnapshot(), From::kKeptState);
}
BENCHMARK(BM_FullCycleSettled)->Apply(ClusterSizes);

// 1,000 nodes full of over-quota 1-GPU jobs of 10 projects; a project under its
// quota submits 500 jobs of 8 GPUs (each needs a whole node back).
Snapshot ReclaimCluster() {
  Snapshot s;
  s.now = 100000;
  s.queues.push_back({"train", {}, Sharing::kGuaranteed, 0});
  for (int p = 0; p < 10; ++p) {
    s.projects.push_back({"over-" + std::to_string(p), 0, {{"train", 200000, -1, 1, -1, -1}}});
  }
  s.projects.push_back({"under", 0, {{"train", 4000000, -1, 1, -1, -1}}});
  for (int n = 0; n < 1000; ++n) {
    Node node;
    node.name = "node-" + std::to_string(n);
    node.gpus = 8;
    node.cpu_milli = 128000;
    node.memory_bytes = Bytes{1024} << 30;
    s.nodes.push_back(node);
    for (int d = 0; d < 8; ++d) {
      RunningJob job;
      job.name = "run-" + std::to_string(n * 8 + d);
      job.queue = "train";
      job.project = "over-" + std::to_string((n * 8 + d) % 10);
      job.shape.gpu_milli = 1000;
      job.start_time = (n * 8 + d) % 5000;
      job.replicas = {{node.name, {d}}};
      s.running.push_back(std::move(job));
    }
  }
  for (int i = 0; i < 500; ++i) {
    PendingJob job;
    job.name = "large-" + std::to_string(i);
    job.queue = "train";
    job.project = "under";
    job.shape.gpu_milli = 8000;
    job.arrival_time = i;
    s.pending.push_back(std::move(job));
  }
  return s;
}

void BM_ReclaimLargeJobs(benchmark::State& state) {
  Snapshot snapshot = ReclaimCluster();
  std::size_t admitted = 0;
  std::size_t preempted = 0;
  for (auto _ : state) {
    Decisions d = Decide(snapshot);
    admitted = d.admissions.size();
    preempted = d.preemptions.size();
    benchmark::DoNotOptimize(d);
  }
  state.counters["admitted"] = static_cast<double>(admitted);
  state.counters["preempted"] = static_cast<double>(preempted);
}
BENCHMARK(BM_ReclaimLargeJobs)->Unit(benchmark::kMillisecond);

// One arrival, then one completion, each followed by an incremental cycle, on the
// 5,000-node cluster once settled. A fixed count of events, so every run decides
// the same sequence.
void BM_IncrementalEvent(benchmark::State& state) {
  ClusterSpec spec;
  spec.nodes = 5000;
  Engine engine = SettledSynthetic(spec, IncrementalOnly());
  RunEvents(state, engine, [&](std::uint64_t n) { return SyntheticJob(spec, n, 1000000); });
}
BENCHMARK(BM_IncrementalEvent)->Iterations(2000)->Unit(benchmark::kMicrosecond);

// Following a live cluster, on the 5,000-node cluster once settled. `remove`: a
// node is removed (its jobs wait again), then added back (its room reappears);
// otherwise cordoned, then uncordoned. A node after another; each change is followed
// by an incremental cycle.
void NodeChangesOnSynthetic(benchmark::State& state, bool remove) {
  ClusterSpec spec;
  spec.nodes = 5000;
  Engine engine = SettledSynthetic(spec, IncrementalOnly());
  RunNodeChanges(state, engine, remove);
}

void BM_IncrementalNodeChange(benchmark::State& state) { NodeChangesOnSynthetic(state, false); }
BENCHMARK(BM_IncrementalNodeChange)->Iterations(400)->Unit(benchmark::kMicrosecond);

void BM_IncrementalNodeRemoval(benchmark::State& state) { NodeChangesOnSynthetic(state, true); }
BENCHMARK(BM_IncrementalNodeRemoval)->Iterations(400)->Unit(benchmark::kMicrosecond);

// The operator's way: each cycle hands LiveEngine a whole snapshot (built from API
// state) in which one node was cordoned or uncordoned since the last; it finds
// that difference, applies it, and runs an incremental cycle. The snapshot carries
// the engine's last decisions (as the API would once they are written), so the
// engine is never rebuilt. Building the snapshot itself is the operator's cost, not
// counted here.
void BM_LiveEngineFollowsNodeChange(benchmark::State& state) {
  ClusterSpec spec;
  spec.nodes = 5000;
  spec.skewed = true;
  Options options;
  options.full_cycle_interval_seconds = 60;
  LiveEngine live(options);
  Snapshot cluster = SettledSynthetic(spec, options).ToSnapshot();
  live.Decide(cluster);
  std::size_t changes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    cluster = live.State();  // Its decisions written (victims still stopping).
    Node& node = cluster.nodes[(changes / 2 * 37) % cluster.nodes.size()];
    node.schedulable = changes++ % 2 != 0;
    state.ResumeTiming();
    Decisions d = live.Decide(cluster);
    benchmark::DoNotOptimize(d);
  }
  state.counters["rebuilds"] = static_cast<double>(live.stats().rebuilds);
  state.counters["running"] = static_cast<double>(cluster.running.size());
  state.counters["pending"] = static_cast<double>(cluster.pending.size());
}
BENCHMARK(BM_LiveEngineFollowsNodeChange)->Iterations(100)->Unit(benchmark::kMillisecond);

// The same cluster: one project's guarantee is raised by 8 GPUs, then lowered back
// (its work above it becomes reclaimable), a project after another; each change is
// followed by an incremental cycle.
void BM_IncrementalQuotaChange(benchmark::State& state) {
  ClusterSpec spec;
  spec.nodes = 5000;
  Engine engine = SettledSynthetic(spec, IncrementalOnly());
  RunQuotaChanges(state, engine);
}
BENCHMARK(BM_IncrementalQuotaChange)->Iterations(400)->Unit(benchmark::kMicrosecond);

// Bytes the engine holds per job (running and pending), on the 5,000-node cluster,
// with the indexes incremental cycles keep, counted by the allocator (job_memory.h).
// `engine_estimate` is the engine's own count (Engine::job_memory_bytes()).
void BM_MemoryPerJob(benchmark::State& state) {
  ClusterSpec spec;
  spec.nodes = 5000;
  Options options;
  options.full_cycle_interval_seconds = 60;
  Snapshot snapshot = SyntheticCluster(spec);
  JobMemory measured;
  for (auto _ : state) measured = MeasureJobMemory(snapshot, options);
  Engine engine(snapshot, options);
  auto jobs = static_cast<double>(engine.running_count() + engine.pending_count());
  state.counters["bytes_per_job"] = measured.built;
  state.counters["bytes_per_job_after_cycle"] = measured.after_cycle;
  state.counters["engine_estimate"] = static_cast<double>(engine.job_memory_bytes()) / jobs;
  state.counters["jobs"] = jobs;
}
BENCHMARK(BM_MemoryPerJob)->Iterations(1);

}  // namespace
}  // namespace gpupool::engine::bench

BENCHMARK_MAIN();
