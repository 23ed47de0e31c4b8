// Realistic clusters for the engine benchmarks, filled to a stated share of their GPUs.
//
// Nodes (shares of the count, racks of 32 nodes of one kind):
//   train        40 % H100 x 8, 20 % A100 x 8   Guaranteed, 10-minute minimum run time
//   research     20 % A100 x 4                  Guaranteed, reclaim waits up to 5 minutes
//   interactive  20 % L40S x 4                  Fixed quotas
// Nodes carry the labels the operator reads (pool, nvidia.com/gpu.product, rack, zone,
// hostname); a job picks a GPU model by node selector, as a TrainingJob's pod template
// does. Projects have uneven guarantees in one to three queues, together the size of
// each pool, and optionally belong to departments.
//
// Jobs per pool: fractions (250, 500 milli-GPUs), 1, 2, 4 and 8 GPUs, and gangs of 2-16
// replicas (8 GPUs on the 8-GPU pools, 4 GPUs on the 4-GPU pool) asking for one rack,
// preferably or required. Every job has a namespace/name and a uid of the lengths the
// operator gives them.
//
// Running work is placed by DevicePlacer (every device, cpu and memory bound checked;
// a gang asking for one rack runs in one, or, when it only prefers one and none has
// room, anywhere) until each pool holds `fill` of its GPUs: arrivals are drawn from the pool's mix
// and placed where they fit; one that does not fit (or, in the Fixed pool, would exceed its
// project's quota) waits with the pending jobs, nothing is dropped. A pool that cannot
// reach its fill is reported by FillShortfall, so a benchmark fails instead of
// measuring another cluster. Seeded: the same spec builds the same snapshot.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpupool/engine/snapshot.h"

namespace gpupool::engine::bench {

struct RealisticSpec {
  int nodes = 1000;
  double fill = 0.90;  // Share of every pool's GPUs the running work holds: 0.70-0.95.
  int projects = 200;
  // Projects spread round-robin over this many departments (0: none). A department's
  // quota in a queue is 90 % of its projects' there, its limit 1.5 times that.
  int departments = 0;
  int pending_per_node = 4;  // The waiting backlog, besides arrivals that did not fit.
  std::uint64_t seed = 42;
};

// How full one pool (queue) is.
struct PoolFill {
  std::string queue;
  MilliGpu capacity = 0;
  MilliGpu allocated = 0;
};

struct RealisticCluster {
  Snapshot snapshot;
  std::vector<PoolFill> pools;
  int unplaced = 0;     // Arrivals that found no room while filling: pending.
  double Fill() const;  // Allocated share of all GPUs.
};

// Throws std::invalid_argument naming the field when the spec is out of range.
RealisticCluster BuildRealisticCluster(const RealisticSpec& spec);

// Empty when every pool holds at least `fill` of its GPUs; otherwise which did not.
std::string FillShortfall(const RealisticCluster& cluster, double fill);

}  // namespace gpupool::engine::bench
