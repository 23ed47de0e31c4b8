// Bytes an Engine holds per job, as the allocator counts them (heap_counter.h): the heap
// an engine built from the snapshot holds, less what one built from the same
// snapshot without its jobs holds, over the jobs (running and pending).
#pragma once

#include "gpupool/engine/engine.h"

namespace gpupool::engine::bench {

struct JobMemory {
  double built = 0;        // Right after the state is built from the snapshot.
  double after_cycle = 0;  // After a full cycle (its decisions freed).
};

JobMemory MeasureJobMemory(const Snapshot& snapshot, const Options& options);

}  // namespace gpupool::engine::bench
