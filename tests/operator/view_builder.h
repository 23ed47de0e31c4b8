// Test helper: a ClusterView written as objects of the API (YAML-like JSON), so
// each PlanCycle test reads like the cluster it describes.
#pragma once

#include <string>

#include "gpupool/operator/plan.h"

namespace gpupool::op::testing {

class ViewBuilder {
 public:
  explicit ViewBuilder(EpochSeconds now = 1'800'000'000) { view_.now = now; }

  ViewBuilder& Node(const std::string& name, int gpus, const std::string& pool, bool ready = true);
  ViewBuilder& Queue(const std::string& name, const std::string& pool,
                     const std::string& sharing = "Guaranteed", const Json& idle = nullptr);
  ViewBuilder& GpuReadings(utilization::SharedReadings readings);
  ViewBuilder& Project(const std::string& name, const std::string& ns, int gpu,
                       const std::string& queue = "train");
  // A TrainingJob; `status` (may be null) is its status as the API holds it.
  ViewBuilder& Job(const std::string& ns, const std::string& name, int replicas, const Json& gpus,
                   const Json& status = nullptr, const std::string& queue = "train");
  ViewBuilder& RawJob(const Json& object);
  // A pod of job `job` (replica index `replica`), as the controller would make it.
  ViewBuilder& JobPod(const std::string& ns, const std::string& job, int replica,
                      const std::string& node, const std::string& phase, bool gated, int gpus = 1,
                      bool terminating = false);
  ViewBuilder& ForeignPod(const std::string& ns, const std::string& name, const std::string& node,
                          int gpus);

  const ClusterView& view() const { return view_; }
  static std::string UidOf(const std::string& ns, const std::string& name) {
    return "uid-" + ns + "-" + name;
  }

 private:
  ClusterView view_;
};

// The status a job admitted at `admitted` on `node`, devices `devices`, has.
Json HoldingStatus(const std::string& phase, const std::string& node, std::vector<int> devices,
                   EpochSeconds admitted, const std::string& project);

}  // namespace gpupool::op::testing
