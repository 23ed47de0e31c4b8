// Test helper for the operator's integration tests: a cluster with the CRDs
// and queues installed, a real `gpupool controller` process against it
// (killable and restartable), and reads of the cluster through real kubectl,
// retried because fault-injection tests make some requests fail. The cluster
// is a backend of tests/support/test_cluster.h: a fresh `gpupool sandbox`
// (with the nodes simulated inside it), or a real control plane shared by the
// test process, reset for each harness, whose nodes a `gpupool simulate-nodes`
// process plays.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fault_proxy.h"
#include "sandbox_process.h"
#include "test_cluster.h"

namespace gpupool::op::testing {

// Story 1 of PRODUCT.md: its nodes (one 8-GPU training node, two small build
// nodes) and its three projects, each guaranteed 2 GPUs of the train queue.
inline constexpr char kStory1Projects[] = R"(
apiVersion: v1
kind: Namespace
metadata: {name: susan}
---
apiVersion: v1
kind: Namespace
metadata: {name: joe}
---
apiVersion: v1
kind: Namespace
metadata: {name: jemma}
---
apiVersion: gpupool.dev/v1alpha1
kind: Project
metadata: {name: susan}
spec: {namespaces: [susan], quotas: [{queue: train, gpu: 2}]}
---
apiVersion: gpupool.dev/v1alpha1
kind: Project
metadata: {name: joe}
spec: {namespaces: [joe], quotas: [{queue: train, gpu: 2}]}
---
apiVersion: gpupool.dev/v1alpha1
kind: Project
metadata: {name: jemma}
spec: {namespaces: [jemma], quotas: [{queue: train, gpu: 2}]}
)";

inline constexpr char kStoryNodes[] = "1x8:pool=train,gpu=A100,rack=r1;2x2:pool=build,gpu=T4";

using Json = nlohmann::json;
using sandbox::testing::CommandResult;

// A `gpupool <command> --kubeconfig K <flags>` child process.
class GpupoolProcess {
 public:
  GpupoolProcess(std::string command, std::string kubeconfig, std::string log_path,
                 std::vector<std::string> flags = {});
  ~GpupoolProcess();
  void Start();
  void Kill(int signal);  // Sends `signal` and reaps the process.
  bool Running();
  pid_t pid() const { return pid_; }

 private:
  std::string command_, kubeconfig_, log_path_;
  std::vector<std::string> flags_;
  pid_t pid_ = -1;
};
using ControllerProcess = GpupoolProcess;

// A controller flag's value that stands for the URL of the cluster's simulated
// DCGM exporter: the sandbox's (https, its CA added as --gpu-metrics-ca-file),
// or `gpupool simulate-nodes`'s on a real control plane.
inline constexpr char kGpuMetricsUrl[] = "{gpu-metrics-url}";

class ClusterHarness {
 public:
  // `nodes` as `gpupool sandbox --nodes` takes it; `sandbox_flags` are added
  // (the sandbox backend; on a real one, its --fault-* flags put a FaultProxy
  // between the controllers and the server). `backend`: as backends::testing::Backends() names
  // them. With `start_controller` false there is none until StartController.
  explicit ClusterHarness(const std::string& nodes, std::vector<std::string> sandbox_flags = {},
                          std::vector<std::string> controller_flags = {},
                          const std::string& backend = "sandbox", bool start_controller = true);
  ~ClusterHarness();

  // The sandbox process; only on the sandbox backend.
  sandbox::testing::SandboxProcess& sandbox() { return *sandbox_; }
  bool real() const { return !sandbox_; }
  std::string kubeconfig() const;
  // What the controllers are given: kubeconfig(), or the fault proxy's.
  std::string ControllerKubeconfig() const;
  // The proxy injecting faults on a real backend; null when there is none.
  const backends::testing::FaultProxy* fault_proxy() const { return proxy_.get(); }
  ControllerProcess& controller() { return *controller_; }
  // Starts the first controller with its own kubeconfig (another identity).
  ControllerProcess& StartController(const std::string& kubeconfig, std::vector<std::string> flags);
  // Registers gpupool's pod webhook as the chart does (its selectors, failure
  // policy Fail) at a loopback URL, starts the first controller serving it there
  // with `flags` added, and waits until the server calls it. The harness
  // removes the registration when it ends.
  ControllerProcess& StartControllerServingWebhook(std::vector<std::string> flags = {});
  // Starts one more controller process writing its log to `<name>.log`.
  ControllerProcess& AddController(const std::string& name, std::vector<std::string> flags);

  // kubectl, retried up to 10 times while it fails (injected faults).
  CommandResult Kubectl(const std::string& arguments);
  // kubectl once, for a command that is meant to fail.
  CommandResult KubectlOnce(const std::string& arguments);
  // Writes `text` to a file of the harness's own and returns its path.
  std::string WriteFile(const std::string& name, const std::string& text);
  void Apply(const std::string& yaml);
  // `kubectl get <what> -o json` in every namespace, or the one `-n NS` in `what` names.
  Json Get(const std::string& what);
  // Polls `done` (with fresh TrainingJobs) until true or `seconds` pass.
  bool WaitFor(double seconds, const std::function<bool(const Json& jobs)>& done);

  // Devices never given twice: no two holding jobs share a node's device, no
  // node's bound, unfinished pods ask for more GPUs than it has, and no physical
  // device is given to two pods or shared by fractions without its reservation
  // pod. "" when sound.
  std::string CheckDevices();
  // The log of the first controller, or of the one `AddController` named `name`.
  std::string ControllerLog(const std::string& name = "controller") const;

 private:
  // A real control plane as a fresh cluster would be: no gpupool objects,
  // pods, nodes or Events left by an earlier harness; then `nodes` simulated.
  void ResetRealCluster();
  void StartSimulatedNodes(const std::string& nodes);
  // kGpuMetricsUrl in `flags` made the backend's exporter.
  void ResolveGpuMetricsUrl(std::vector<std::string>& flags);
  // Whether a labelled pod created now (a dry run) comes back gated.
  bool WebhookGates();

  std::unique_ptr<sandbox::testing::SandboxProcess> sandbox_;
  backends::testing::TestCluster* real_ = nullptr;
  std::string dir_;                                       // the harness's files and logs
  std::unique_ptr<backends::testing::FaultProxy> proxy_;  // the controllers' way in, if any
  std::unique_ptr<GpupoolProcess> nodes_;
  std::unique_ptr<ControllerProcess> controller_;
  std::vector<std::unique_ptr<ControllerProcess>> more_controllers_;
  int applied_ = 0;
  bool webhook_registered_ = false;
};

// A one-replica job of `ns` asking for `gpus` per replica (a YAML value) that runs
// `run_seconds` (simulated); `extra_spec` adds indented spec lines.
std::string TrainJobYaml(const std::string& ns, const std::string& name, int run_seconds,
                         const std::string& queue = "train", const std::string& extra_spec = "",
                         const std::string& gpus = "1");
// A pod of `ns` that asks gpupool for `gpus` GPUs of `queue` (docs/workloads.md),
// created gated, running for long (simulated); `labels` adds ", key: value" pairs.
std::string GatedPodYaml(const std::string& ns, const std::string& name, int gpus,
                         const std::string& queue = "train", const std::string& labels = "");
// The same pod with the labels alone: gpupool's webhook gates it at creation.
std::string LabelledPodYaml(const std::string& ns, const std::string& name, int gpus,
                            const std::string& queue = "train", const std::string& labels = "");
// A batch/v1 Job of `parallelism` labelled pods (the webhook gates them),
// whose podFailurePolicy ignores disruptions (preemptions) and which fails at
// its first real failure.
std::string LabelledBatchJobYaml(const std::string& ns, const std::string& name, int gpus,
                                 int parallelism, const std::string& labels = "");
// The physical-device part of CheckDevices, on `pods` (`kubectl get pods -A`).
std::string CheckPhysicalDevices(const Json& pods);
std::string PhaseOf(const Json& jobs, const std::string& ns, const std::string& name);
int CountPhase(const Json& jobs, const std::string& ns, const std::string& phase);

}  // namespace gpupool::op::testing
