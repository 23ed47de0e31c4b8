#include "job_memory.h"

#include <cstdint>

#include "heap_counter.h"

namespace gpupool::engine::bench {
namespace {

std::int64_t HeldByEngine(const Snapshot& snapshot, const Options& options, bool cycle) {
  std::int64_t before = LiveHeapBytes();
  Engine engine(snapshot, options);
  if (cycle) engine.DecideAll();  // The decisions are freed at the end of the statement.
  return LiveHeapBytes() - before;
}

double PerJob(const Snapshot& snapshot, const Snapshot& without_jobs, const Options& options,
              bool cycle) {
  auto jobs = static_cast<double>(snapshot.running.size() + snapshot.pending.size());
  std::int64_t held =
      HeldByEngine(snapshot, options, cycle) - HeldByEngine(without_jobs, options, cycle);
  return static_cast<double>(held) / jobs;
}

}  // namespace

JobMemory MeasureJobMemory(const Snapshot& snapshot, const Options& options) {
  Snapshot without_jobs = snapshot;
  without_jobs.running.clear();
  without_jobs.pending.clear();
  return {PerJob(snapshot, without_jobs, options, false),
          PerJob(snapshot, without_jobs, options, true)};
}

}  // namespace gpupool::engine::bench
