// Engine cycles as the benchmarks of every workload run them: one full cycle, an
// engine settled by cycles, and changes each followed by an incremental cycle.
#pragma once

#include <benchmark/benchmark.h>

#include <functional>

#include "gpupool/engine/engine.h"

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

// Plays the operator's part for victims: their pods stop at once.
void StopVictims(Engine& engine, const Decisions& d);

// The engine after cycles on the snapshot until one changes nothing (20 at most).
Engine SettledEngine(const Snapshot& snapshot, Options options = {});

// Options under which every Decide() after the first is incremental (SetNow is never
// called, so the full-cycle interval never passes).
Options IncrementalOnly();

// Per iteration: one arrival (even iterations, `arrival(n)` for a fresh n), or one
// completion of a running job of `engine` (odd), then an incremental cycle.
void RunEvents(benchmark::State& state, Engine& engine,
               const std::function<PendingJob(std::uint64_t)>& arrival);

// Per iteration: a node cordoned then uncordoned (or removed then added back when
// `remove`), a node after another spread over the cluster, then an incremental cycle.
void RunNodeChanges(benchmark::State& state, Engine& engine, bool remove);

// Per iteration: a project's guarantee in its first queue raised by 8 GPUs, then
// lowered back, a project (of those with a quota) after another, then an incremental
// cycle.
void RunQuotaChanges(benchmark::State& state, Engine& engine);

}  // namespace gpupool::engine::bench
