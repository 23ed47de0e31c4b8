// Synthetic clusters for the engine benchmarks: racks of 8-GPU nodes, 200 projects
// with equal guarantees, running work packed onto the nodes, and a deep queue of
// mixed pending jobs. Running work is spread evenly over the projects (each near its
// quota), or skewed (a fifth of the projects far over quota, so the first cycle
// reclaims thousands of jobs). Seeded: the same arguments build the same snapshot.
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
  bool skewed = false;  // 80 % of the running work owned by a fifth of the projects.
  // Projects spread round-robin over this many departments (0: none). Each department's
  // quota is 90 % of its projects' quotas together (so they are scaled), its limit 1.5
  // times its quota, its weight 1 to 3.
  int departments = 0;
};

Snapshot SyntheticCluster(const ClusterSpec& spec);

// A pending job like those of SyntheticCluster, named `name`.
PendingJob SyntheticJob(const ClusterSpec& spec, std::uint64_t index, Seconds now);

}  // namespace gpupool::engine::bench
