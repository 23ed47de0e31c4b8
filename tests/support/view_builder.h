// Test helper: a ClusterView written as objects of the API (YAML-like JSON), so
// each PlanCycle test reads like the cluster it describes.
#pragma once

#include <string>

#include "gpupool/operator/plan.h"

namespace gpupool::op::testing {

// The moment a ViewBuilder's cluster is seen at unless told otherwise.
inline constexpr EpochSeconds kNow = 1'800'000'000;

class ViewBuilder {
 public:
  explicit ViewBuilder(EpochSeconds now = kNow) { view_.now = now; }

  ViewBuilder& Node(const std::string& name, int gpus, const std::string& pool, bool ready = true);
  // Marks a node added before unschedulable, as `kubectl cordon` (and drain) leaves it.
  ViewBuilder& Cordon(const std::string& name);
  ViewBuilder& Queue(const std::string& name, const std::string& pool,
                     const std::string& sharing = "Guaranteed", const Json& idle = nullptr);
  ViewBuilder& GpuReadings(utilization::SharedReadings readings);
  ViewBuilder& Project(const std::string& name, const std::string& ns, int gpu,
                       const std::string& queue = "train");
  // A Department with a quota in one queue (limit -1: none), and a project's membership
  // (the project must be added first).
  ViewBuilder& Department(const std::string& name, int gpu, int limit = -1,
                          const std::string& queue = "train");
  ViewBuilder& InDepartment(const std::string& project, const std::string& department);
  // Sets a project's metadata.creationTimestamp.
  ViewBuilder& ProjectCreatedAt(const std::string& project, EpochSeconds when);
  // Sets a queue's metadata.creationTimestamp.
  ViewBuilder& QueueCreatedAt(const std::string& queue, EpochSeconds when);
  // Sets a project's, or a queue's, Ready condition as the controller last
  // wrote it: True for reason "Valid", False for any other.
  ViewBuilder& ProjectReadyAs(const std::string& project, const std::string& reason);
  ViewBuilder& QueueReadyAs(const std::string& queue, const std::string& reason);
  // A TrainingJob; `status` (may be null) is its status as the API holds it.
  ViewBuilder& Job(const std::string& ns, const std::string& name, int replicas, const Json& gpus,
                   const Json& status = nullptr, const std::string& queue = "train");
  ViewBuilder& RawJob(const Json& object);
  // A pod of job `job` (replica index `replica`), as the controller would make it.
  ViewBuilder& JobPod(const std::string& ns, const std::string& job, int replica,
                      const std::string& node, const std::string& phase, bool gated, int gpus = 1,
                      bool terminating = false);
  // A fraction's pod of job `job`, released and running on `device` of `node`.
  ViewBuilder& FractionPod(const std::string& ns, const std::string& job, const std::string& node,
                           const std::string& device);
  // A reservation pod of slot `slot` of `node` in namespace `ns`; `visible_devices`
  // is what it reports ("" before the device plugin gave it one), and an unbound
  // one waits for the scheduler.
  ViewBuilder& ReservationPod(const std::string& ns, const std::string& node, int slot,
                              const std::string& visible_devices, bool bound = true,
                              bool terminating = false);
  // The phase of a pod added before.
  ViewBuilder& SetPodPhase(const std::string& ns, const std::string& name, PodPhase phase);
  // A running pod gpupool did not create; `job_label` is the gpupool.dev/job
  // label it wears anyway (none when empty).
  ViewBuilder& ForeignPod(const std::string& ns, const std::string& name, const std::string& node,
                          int gpus, const std::string& job_label = "");

  // A pod as the API server holds it, decoded as the pod informer decodes it.
  ViewBuilder& RawPod(const Json& object);
  // A batch/v1 Job of `ns` as the informer holds it, made at `created` (0: unset).
  ViewBuilder& BatchJob(const std::string& ns, const std::string& uid, int parallelism,
                        int completions = -1, EpochSeconds created = 0);
  // An owner of grouped pods of the kind OwnerKinds() names, as its informer
  // decodes `object`.
  ViewBuilder& Owner(const std::string& kind, const Json& object);

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
