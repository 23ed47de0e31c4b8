// The scale benchmarks' cluster: a real `gpupool sandbox` process, the API
// installed, a real `gpupool controller` process against it, and a client for
// the load generator. All three share the machine, as they would share a node.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "cluster_harness.h"
#include "gpupool/kube/client.h"
#include "sandbox_process.h"

namespace gpupool::bench {

using kube::Json;

// CPU seconds used so far and resident memory of a process, from /proc.
struct ProcessUse {
  double cpu_seconds = 0;
  double rss_mb = 0;
  double peak_rss_mb = 0;  // The kernel's high-water mark (VmHWM) since the process started.
};
ProcessUse UseOf(pid_t pid);

class BenchCluster {
 public:
  // `nodes` as `gpupool sandbox --nodes` takes it; the sandbox runs in real
  // time, and a pod runs as soon as it is bound (a job's run time counts from
  // its admission, as in Kueue's benchmark, which has no pods).
  explicit BenchCluster(const std::string& nodes);

  kube::Client& client() { return *client_; }
  // Namespaces, Queues and Projects, created through the client.
  void CreateNamespace(const std::string& name);
  void CreateQueue(const std::string& name, const std::string& pool);
  void CreateProject(const std::string& name, const std::string& queue, int gpus, int limit);
  // Starts the controller (raised client rate limits, many writes in flight)
  // and waits until it has written every Project's status.
  void StartController(std::vector<std::string> extra_flags = {});

  ProcessUse SandboxUse() const { return UseOf(sandbox_->pid()); }
  ProcessUse ControllerUse() const { return UseOf(controller_->pid()); }
  pid_t controller_pid() const { return controller_->pid(); }
  std::string ControllerLog() const;

 private:
  std::unique_ptr<sandbox::testing::SandboxProcess> sandbox_;
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

// One-replica TrainingJob `name` in `ns` on `queue`: `gpus` per replica, job
// priority `priority`, its pod running `run_seconds` (0: until deleted).
Json OneReplicaJob(const std::string& ns, const std::string& name, const std::string& queue,
                   int gpus, int priority, double run_seconds);

// The load generators' creates: the server's answer is not parsed, as no
// generator reads it (a user's tool would not pay for it at this rate either).
inline const kube::WriteOptions kAnswerUnread{.ignore_answer = true};

}  // namespace gpupool::bench
