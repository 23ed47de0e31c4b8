// The scale benchmarks' cluster: a real `gpupool sandbox` process, or a real
// control plane (tests/support/test_cluster.h) whose GPU nodes a `gpupool
// simulate-nodes` process plays; the API installed, a real `gpupool
// controller` process against it, and a client for the load generator. All
// share the machine, as they would share a node.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "cluster_harness.h"
#include "gpupool/kube/client.h"
#include "sandbox_process.h"
#include "test_cluster.h"

namespace gpupool::bench {

using kube::Json;

// CPU seconds used so far and resident memory of a process, from /proc.
struct ProcessUse {
  double cpu_seconds = 0;
  double rss_mb = 0;
  double peak_rss_mb = 0;  // The kernel's high-water mark (VmHWM) since the process started.
};
ProcessUse UseOf(pid_t pid);
// Each process of a cluster by name, with its use.
using ProcessUses = std::vector<std::pair<std::string, ProcessUse>>;
// A real control plane's processes by name, in the order scripts/control-plane
// wrote them to `dir`/pids.
std::vector<std::pair<std::string, pid_t>> ControlPlanePids(const std::string& dir);

// The objects of `kind` the chart installs (manifests/gpupool.yaml, rendered from it).
std::vector<Json> ManifestObjects(const std::string& kind);

class BenchCluster {
 public:
  // `nodes` as `gpupool sandbox --nodes` takes it; the sandbox runs in real
  // time, and a pod runs as soon as it is bound (a job's run time counts from
  // its admission, as in Kueue's benchmark, which has no pods). `backend`:
  // "sandbox", or a real control plane's version folder ("v1.32.13").
  explicit BenchCluster(const std::string& nodes, const std::string& backend = "sandbox");
  ~BenchCluster();

  kube::Client& client() { return *client_; }
  // Namespaces, Queues and Projects, created through the client.
  void CreateNamespace(const std::string& name);
  void CreateQueue(const std::string& name, const std::string& pool);
  void CreateProject(const std::string& name, const std::string& queue, int gpus, int limit);
  // Starts the controller (raised client rate limits, many writes in flight)
  // and waits until it has written every Project's status.
  void StartController(std::vector<std::string> extra_flags = {});

  // The sandbox's use; on a real control plane, its processes' and the node
  // simulator's summed.
  ProcessUse SandboxUse() const;
  // The cluster's processes one by one: the sandbox, or each of the control
  // plane's and the node simulator.
  ProcessUses ServerUse() const;
  ProcessUse ControllerUse() const { return UseOf(controller_->pid()); }
  pid_t controller_pid() const { return controller_->pid(); }
  std::string ControllerLog() const;

 private:
  // A real control plane: the PriorityClasses the chart creates, and its nodes simulated.
  void PrepareRealCluster(const std::string& nodes);

  std::unique_ptr<sandbox::testing::SandboxProcess> sandbox_;
  backends::testing::TestCluster* real_ = nullptr;
  std::unique_ptr<op::testing::GpupoolProcess> simulated_nodes_;
  std::string kubeconfig_, dir_;
  std::unique_ptr<op::testing::ControllerProcess> controller_;
  std::unique_ptr<kube::Client> client_;
  std::vector<std::string> projects_;
};

// The controller's cycles that wrote something, from its log (`--log-level info`).
struct CycleSummary {
  int cycles = 0;
  double plan_ms = 0, write_ms = 0;  // Means.
  double writes = 0;                 // Mean writes per cycle.
};
CycleSummary SummarizeCycles(const std::string& log);
// Prints both processes' use and the controller's cycles.
void PrintUse(const ProcessUse& controller, const ProcessUse& sandbox,
              const std::string& controller_log);
// The same with each of the cluster's processes, and the controller's share of
// all their CPU.
void PrintUse(const ProcessUse& controller, const ProcessUses& cluster,
              const std::string& controller_log);

// One-replica TrainingJob `name` in `ns` on `queue`: `gpus` per replica, job
// priority `priority`, its pod running `run_seconds` (0: until deleted).
Json OneReplicaJob(const std::string& ns, const std::string& name, const std::string& queue,
                   int gpus, int priority, double run_seconds);

// The load generators' creates: the server's answer is not parsed, as no
// generator reads it (a user's tool would not pay for it at this rate either).
inline const kube::WriteOptions kAnswerUnread{.ignore_answer = true};

}  // namespace gpupool::bench
