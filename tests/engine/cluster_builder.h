// Terse construction of engine snapshots for tests, and a driver that plays the
// operator's part: it applies each cycle's decisions and lets jobs finish.
#pragma once

#include <string>
#include <vector>

#include "gpupool/engine/engine.h"

namespace gpupool::engine::testing {

inline constexpr MilliGpu kGpu = kMilliPerGpu;

class ClusterBuilder {
 public:
  // `count` nodes named prefix-0..; each with `gpus` devices.
  ClusterBuilder& Nodes(int count, int gpus, const std::string& prefix = "node", Labels labels = {},
                        const std::string& model = "A100");
  ClusterBuilder& AddQueue(const std::string& name, Sharing sharing, Labels selector = {},
                           Seconds min_runtime = 0);
  ClusterBuilder& AddProject(const std::string& name, const std::string& queue, MilliGpu quota,
                             int priority = 0, MilliGpu limit = -1, std::int64_t weight = 1);
  // A department's quota in a queue (the department is created on first use), and a
  // project's membership.
  ClusterBuilder& AddDepartment(const std::string& name, const std::string& queue, MilliGpu quota,
                                MilliGpu limit = -1, std::int64_t weight = 1);
  ClusterBuilder& InDepartment(const std::string& project, const std::string& department);
  PendingJob& Submit(const std::string& name, const std::string& queue, const std::string& project,
                     MilliGpu gpus_per_replica, int replicas = 1,
                     WorkloadClass workload_class = WorkloadClass::kTrain, int priority = 0);
  Snapshot& snapshot() { return snapshot_; }
  Snapshot Build() const { return snapshot_; }

 private:
  Snapshot snapshot_;
  Seconds next_arrival_ = 0;
};

// prefix + number (avoids a false -Wrestrict of GCC 12 on string + to_string).
std::string Named(const char* prefix, long long number);

// Pending job with defaults, for Engine::AddPending.
PendingJob Job(const std::string& name, const std::string& queue, const std::string& project,
               MilliGpu gpus_per_replica, int replicas = 1,
               WorkloadClass workload_class = WorkloadClass::kTrain, int priority = 0,
               Seconds arrival = 0);

// Lookups over decisions.
const Admission* FindAdmission(const Decisions& decisions, const std::string& job);
const Waiting* FindWaiting(const Decisions& decisions, const std::string& job);
std::vector<std::string> Victims(const Decisions& decisions);
std::vector<std::string> Admitted(const Decisions& decisions);
const ProjectShare* FindShare(const Decisions& decisions, const std::string& project,
                              const std::string& queue);
const DepartmentShare* FindDepartmentShare(const Decisions& decisions,
                                           const std::string& department, const std::string& queue);
// Engine options under which Decide() after the first cycle is incremental, so a
// test sees that the engine follows each change itself.
Options Incremental();
// GPUs in use by a project in a queue, from the engine's state.
MilliGpu Allocated(const Engine& engine, const std::string& project, const std::string& queue);

}  // namespace gpupool::engine::testing
