// Simulated GPU nodes on any Kubernetes API server, as KWOK simulates nodes:
// `gpupool simulate-nodes` registers Nodes (capacity and allocatable with
// nvidia.com/gpu, labels, Ready) and keeps their Leases fresh, and plays each
// node's kubelet and NVIDIA device plugin for the pods bound to it: devices
// named by UUID (kubelet.h, device_plugin.h), Running after a start delay,
// Succeeded or Failed after the run time a pod asks for
// (sandbox.gpupool.dev/run-seconds), graceful deletions confirmed after their
// grace period, and a pod whose GPUs are not free refused as a real kubelet
// refuses it (Failed, UnexpectedAdmissionError). Scheduling, garbage
// collection and namespaces are the real control plane's.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "gpupool/kube/client.h"
#include "gpupool/kube/informer.h"
#include "sandbox/nodes/nodes.h"

namespace gpupool::sandbox {

struct RemoteKubeletsOptions {
  std::vector<NodeSpec> nodes;
  double time_scale = 1.0;   // simulated seconds per real second
  double start_seconds = 2;  // bound -> Running
  double stop_seconds = 1;   // a deleted pod's containers stop after this (at most its grace)
  int lease_seconds = 40;    // the nodes' Lease duration; renewed every quarter of it
  std::string field_manager = "gpupool-simulate-nodes";
};

class RemoteKubelets {
 public:
  RemoteKubelets(kube::Client& client, RemoteKubeletsOptions options);
  ~RemoteKubelets();
  RemoteKubelets(const RemoteKubelets&) = delete;
  RemoteKubelets& operator=(const RemoteKubelets&) = delete;

  // Creates (or takes over) every Node with its status and Lease, and starts
  // watching pods. Throws kube::ApiError when the server refuses a Node.
  void Register();
  // One round of every node's kubelet: leases, admissions, starts, finishes,
  // deletions. Errors of single writes are left to the next round.
  void Step();
  // Deletes the Nodes (and so their Leases' owner) this simulator registered.
  void Unregister();

  // The DCGM exporter's page for these nodes and the pods running on them.
  std::string DcgmPage() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct PodClock {
    Clock::time_point bound, running, deleting;
  };

  void RegisterNode(const NodeSpec& spec);
  void RenewLeases(Clock::time_point now);
  // One pod's next step; called for many pods at once, on several threads.
  void StepPod(nlohmann::json pod, Clock::time_point now);
  // Devices for a GPU pod that has none (`pod` becomes the server's answer);
  // false when it was refused instead.
  bool Admit(nlohmann::json& pod, const std::string& node);
  void WriteStatus(const nlohmann::json& pod, const std::function<void(nlohmann::json&)>& change);
  std::set<int> TakenDevices(const std::string& node) const;
  void LearnDevices(const nlohmann::json& pod, const std::string& node);
  void Release(const std::string& uid);
  void ForgetGonePods(const std::vector<std::shared_ptr<const nlohmann::json>>& ours);
  Clock::duration Scaled(double simulated_seconds) const;

  kube::Client& client_;
  RemoteKubeletsOptions options_;
  struct Node {
    const NodeSpec* spec;
    nlohmann::json object;  // as registered: labels for admission, the DCGM page
  };
  struct Given {
    std::string node;
    std::vector<int> devices;
  };
  std::map<std::string, Node> nodes_;  // by name
  std::unique_ptr<kube::Informer<nlohmann::json>> pods_;
  std::mutex mutex_;                        // clocks_ and given_, while pods step in parallel
  std::map<std::string, PodClock> clocks_;  // by pod uid
  std::map<std::string, Given> given_;      // devices given, by pod uid
  Clock::time_point leases_renewed_{};
};

}  // namespace gpupool::sandbox
