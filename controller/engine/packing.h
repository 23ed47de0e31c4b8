// How much free GPU capacity on a node expected work could not use ("waste"). The
// fragmentation-aware packer places each replica where waste grows least.
#pragma once

#include <vector>

#include "gpupool/engine/engine.h"
#include "state.h"

namespace gpupool::engine::internal {

class PackingModel {
 public:
  // Shapes without GPUs are dropped (they never use free GPU capacity); weights are
  // normalized; only the `max_shapes` heaviest are kept to bound the cost.
  explicit PackingModel(std::vector<WorkloadShape> shapes, std::size_t max_shapes = 24);

  // Learns the shapes from the replicas of running and pending jobs.
  static PackingModel Learn(const EngineState& state);

  // Expected free milli-GPUs on a node that a replica drawn from the shapes cannot
  // use: all of it when the replica does not fit the node at all, otherwise the
  // free part of each device too small for it.
  double Waste(const std::vector<std::int32_t>& used, MilliCpu cpu_free, Bytes memory_free) const;
  // Waste after adding `milli` to device `device` (or whole devices in `mask`) and
  // taking cpu/memory.
  double WasteAfter(const NodeState& node, std::uint64_t mask, MilliGpu per_device, MilliCpu cpu,
                    Bytes memory) const;

  bool empty() const { return shapes_.empty(); }

 private:
  std::vector<WorkloadShape> shapes_;
};

}  // namespace gpupool::engine::internal
