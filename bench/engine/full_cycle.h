// Timing one full engine cycle, shared by the benchmarks of every workload.
#pragma once

#include <benchmark/benchmark.h>

#include "gpupool/engine/snapshot.h"

namespace gpupool::engine::bench {

// The cluster sizes every full-cycle benchmark runs at, in nodes.
void ClusterSizes(benchmark::internal::Benchmark* benchmark);

// How a cycle starts: from the state an Engine keeps between cycles (the operator's
// way: its informers keep that state current), or from a snapshot (the state is
// built first, as the pure Decide() does).
enum class From { kKeptState, kSnapshot };

// Times one full cycle per iteration; counters: running and pending jobs in the
// snapshot, and what the cycle admitted, preempted and reclaimed.
void RunFullCycle(benchmark::State& state, const Snapshot& snapshot, From from);

}  // namespace gpupool::engine::bench
