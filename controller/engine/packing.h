// How much free GPU capacity on a node expected work could not use ("waste"). The
// fragmentation-aware packer places each replica where waste grows least.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "gpupool/engine/options.h"
#include "state.h"

namespace gpupool::engine::internal {

class PackingModel {
 public:
  // Shapes without GPUs are dropped (they never use free GPU capacity); weights are
  // normalized; only the `max_shapes` most frequent are kept to bound the cost.
  explicit PackingModel(std::vector<WorkloadShape> shapes, std::size_t max_shapes = 48);

  // Learns the shapes from the replicas of running and pending jobs.
  static PackingModel Learn(const ClusterState& state);
  // The model the state's options ask for: none for best-fit, the expected workload
  // if given, otherwise learned.
  static PackingModel For(const ClusterState& state);

  // Expected GPU milli left unused on the node if it were filled with copies of a
  // replica drawn from the shapes: for each shape, the free milli-GPUs minus what
  // as many copies as fit (by device pieces, whole devices, cpu and memory) would
  // use, weighted by the shape's frequency. A node whose cpu is nearly gone, or
  // whose devices hold pieces too small for common shapes, wastes much.
  double Waste(const NodeState& node) const { return WasteAfter(node, 0, 0, 0, 0); }
  // Waste once `per_device` milli are added to each device in `mask` and
  // `cpu`/`memory` are taken. Results are memoized per node state.
  double WasteAfter(const NodeState& node, std::uint64_t mask, MilliGpu per_device, MilliCpu cpu,
                    Bytes memory) const;

  bool empty() const { return shapes_.empty(); }

 private:
  struct View;
  double WasteOf(const View& view, MilliCpu cpu_free, Bytes memory_free) const;

  std::vector<WorkloadShape> shapes_;
  std::vector<MilliGpu> sizes_;       // Distinct per-replica GPU requests.
  std::vector<std::size_t> size_of_;  // Shape index -> index into sizes_.
  mutable std::unordered_map<std::uint64_t, double> memo_;
};

}  // namespace gpupool::engine::internal
