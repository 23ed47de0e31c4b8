// The fragmentation experiment's placer backed by the gpupool engine: each
// arriving task becomes a one-replica pending job of a single Guaranteed queue
// whose one project's quota is the whole cluster (so only placement decides),
// and the engine's admission is the placement. A task the engine cannot admit
// is withdrawn at once: in this experiment nothing waits.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fragmentation.h"
#include "gpupool/engine/engine.h"

namespace gpupool::replay {

class EnginePlacer : public TaskPlacer {
 public:
  // expected: the tasks whose shapes fractional packing should keep room for
  // (the pod list itself, as the FGD paper's simulator assumes).
  EnginePlacer(const std::vector<AlibabaNode>& nodes, const std::vector<AlibabaTask>& expected,
               engine::Packing packing, std::string name);

  std::string Name() const override { return name_; }
  std::optional<TaskPlacement> Place(const FragCluster& cluster, const AlibabaTask& task,
                                     int64_t sequence) override;

 private:
  std::string name_;
  std::unordered_map<std::string, int> node_index_;
  engine::Engine engine_;
};

// The workload shapes of a pod list with their frequencies (one per distinct shape).
std::vector<engine::WorkloadShape> WorkloadShapes(const std::vector<AlibabaTask>& tasks);

}  // namespace gpupool::replay
