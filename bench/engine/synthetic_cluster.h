// Synthetic clusters for the engine benchmarks: racks of 8-GPU nodes, 200 projects
// with equal guarantees, running work packed onto the nodes (some projects over
// quota, some under), and a deep queue of mixed pending jobs. Seeded: the same
// arguments always build the same snapshot.
#pragma once

#include <cstdint>

#include "gpupool/engine/snapshot.h"

namespace gpupool::engine::bench {

struct ClusterSpec {
  int nodes = 1000;
  int gpus_per_node = 8;
  int projects = 200;
  int running = 30000;
  int pending = 20000;
  std::uint64_t seed = 42;
};

Snapshot SyntheticCluster(const ClusterSpec& spec);

// A pending job like those of SyntheticCluster, named `name`.
PendingJob SyntheticJob(const ClusterSpec& spec, std::uint64_t index, Seconds now);

}  // namespace gpupool::engine::bench
