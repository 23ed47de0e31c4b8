// The Alibaba 2023 fragmentation experiment ("Beware of Fragmentation", ATC'23):
// tasks sampled from the pod list arrive one by one on the real node list and
// never leave; each is placed at once or fails. The share of milli-GPUs
// allocated as arrivals grow shows how well a placement avoids stranding GPU
// fractions. Several placers run side by side on identical arrivals.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/replay/traces.h"

namespace gpupool::replay {

struct FragNode {
  const AlibabaNode* spec = nullptr;
  int64_t cpu_free = 0;
  int64_t memory_free = 0;
  std::vector<int> gpu_free;  // milli-GPUs free on each device
};

struct TaskPlacement {
  int node = -1;
  std::vector<int> devices;  // num_gpu devices (one shared device for a fraction)
};

// Free resources of every node; Fits/Apply are the single source of truth
// that every placer's answer is checked against.
class FragCluster {
 public:
  explicit FragCluster(const std::vector<AlibabaNode>& nodes);

  const std::vector<FragNode>& nodes() const { return nodes_; }
  int64_t capacity_milli() const { return capacity_milli_; }
  int64_t allocated_milli() const { return allocated_milli_; }

  // Whether the node's model is allowed and its CPU and memory suffice.
  static bool NodeAdmits(const FragNode& node, const AlibabaTask& task);
  // Whether the placement fits; when not, why.
  std::optional<std::string> Check(const TaskPlacement& placement, const AlibabaTask& task) const;
  // Takes the resources; throws std::logic_error when Check fails.
  void Apply(const TaskPlacement& placement, const AlibabaTask& task);

 private:
  std::vector<FragNode> nodes_;
  int64_t capacity_milli_ = 0;
  int64_t allocated_milli_ = 0;
};

class TaskPlacer {
 public:
  virtual ~TaskPlacer() = default;
  virtual std::string Name() const = 0;
  // A placement for the task, or nullopt when it cannot be placed now. The
  // experiment applies every placement it gets; placers may remember them.
  virtual std::optional<TaskPlacement> Place(const FragCluster& cluster, const AlibabaTask& task,
                                             int64_t sequence) = 0;
};

// Plain best-fit as the FGD paper's simulator scores it: the feasible node with
// the least CPU and GPU left after placement (each normalized by the largest
// node, weighted 1/2 each); the first such node on ties. Inside the node a
// fraction goes to the fullest device it fits on, whole GPUs to free devices.
class BestFitPlacer : public TaskPlacer {
 public:
  std::string Name() const override { return "best-fit"; }
  std::optional<TaskPlacement> Place(const FragCluster& cluster, const AlibabaTask& task,
                                     int64_t sequence) override;
};

// "cpu-only", "fraction" or "<n>-gpu": how failures are grouped.
std::string TaskKind(const AlibabaTask& task);

// Devices of one node a task can use (best-fit inside the node), or empty.
std::vector<int> PickDevices(const FragNode& node, const AlibabaTask& task);

// Task indices in arrival order: rounds of seeded random permutations of the
// pod list, until the GPU requests reach target_percent of capacity_milli.
std::vector<size_t> SampleArrivals(const std::vector<AlibabaTask>& tasks, int64_t capacity_milli,
                                   double target_percent, uint64_t seed);

struct FragPoint {
  double arrived_percent = 0;    // GPU requests that have arrived / capacity
  double allocated_percent = 0;  // milli-GPUs allocated / capacity
};

struct FragRun {
  std::string placer;
  std::vector<FragPoint> curve;  // after every arrival
  size_t placed = 0;
  size_t failed = 0;
  int64_t failed_gpu_milli = 0;
  // Failed tasks by kind ("cpu-only", "fraction", "1-gpu", "2-gpu", ...), and the
  // arrival level (% of capacity) at which the first task of any kind failed.
  std::map<std::string, size_t> failed_by_kind;
  double first_failure_percent = -1;
  double seconds = 0;  // wall time spent placing
  double AllocatedPercent() const { return curve.empty() ? 0 : curve.back().allocated_percent; }
  // Allocation when arrivals first reached `arrived_percent` (or the last point).
  double AllocatedAt(double arrived_percent) const;
};

struct FragExperiment {
  size_t nodes = 0;
  int64_t capacity_milli = 0;
  size_t arrivals = 0;
  double target_percent = 0;
  uint64_t seed = 0;
  std::vector<FragRun> runs;  // one per placer, same arrivals
};

FragExperiment RunFragmentation(const std::vector<AlibabaNode>& nodes,
                                const std::vector<AlibabaTask>& tasks, double target_percent,
                                uint64_t seed, const std::vector<TaskPlacer*>& placers);

}  // namespace gpupool::replay
