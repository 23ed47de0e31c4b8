// The simulated control plane around the API server: a scheduler (first-fit
// binding), a kubelet per node (Running after a start delay, Succeeded or
// Failed after the run time a pod asks for, graceful termination), the
// garbage collector (ownerReferences, foreground/orphan finalizers) and the
// namespace controller. It follows every change
// through the store's feed (store.h).
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "sandbox/cluster.h"
#include "sandbox/nodes/node_use.h"

namespace gpupool::sandbox {

using SimClock = std::chrono::steady_clock;

struct PodFacts {
  std::string ns, name, uid, node, phase, scheduler;
  bool gated = false;
  bool deleting = false;
  int64_t grace = 0;
  Resources requests;
  Json spec;  // nodeSelector, affinity, tolerations
  double run_seconds = -1;
  double stop_seconds = -1;  // annotation sandbox.gpupool.dev/stop-seconds
  int exit_code = 0;
  std::vector<int> devices;  // Given by the device plugin (sandbox/nodes/device_plugin.h).
  SimClock::time_point seen_bound, seen_running, seen_deleting;
  bool unschedulable_reported = false;
  std::string failed_scheduling;  // the message of the last FailedScheduling Event
  NodeClaim counted;              // what the node use below holds for this pod
};

struct NodeFacts {
  Json labels;
  Json taints;
  Resources allocatable;
  bool ready = true;
  bool unschedulable = false;
  bool wants_not_ready = false;  // annotation sandbox.gpupool.dev/not-ready=true
};

struct SimulatorConfig {
  double time_scale = 1.0;
  double start_seconds = 2;
  double stop_seconds = 1;
};

class Simulator {
 public:
  Simulator(Cluster& cluster, const SimulatorConfig& config);
  ~Simulator();
  void Start();
  void Stop();

 private:
  void Loop();
  void Sync();
  void ListAll();
  void Observe(const ChangeEvent& event);
  void ObservePod(const ChangeEvent& event);
  void ObserveNode(const ChangeEvent& event);
  void ObserveOwnership(const ChangeEvent& event);
  void Schedule();
  // Binds one pending pod to the first node that fits, or reports why none does.
  void SchedulePod(PodFacts* pod, const ResourceType& pods);
  // A Warning Event as kube-scheduler writes one, once per new reason.
  void RecordFailedScheduling(PodFacts& pod, const std::string& message);
  bool Fits(const PodFacts& pod, const NodeFacts& node, const Resources& used,
            std::string* why) const;
  void RunKubelets();
  // The device plugin: devices for every bound GPU pod that has none yet (a pod
  // gets them with its binding when they are free then).
  void AllocateDevices(const ResourceType& pods);
  // Free devices of `node` for a pod of whole GPUs; none for fractions, or when too few are free.
  std::vector<int> FreeDevicesFor(const PodFacts& pod, const std::string& node) const;
  bool StepPod(const ResourceType& pods, const std::string& key, PodFacts& pod,
               SimClock::time_point now);
  // Files the pod under active_ and unsettled_ as its facts say (none: gone).
  void Track(const std::string& key, PodFacts* pod);
  // Counts the pod in use_ as its facts say: on its node while bound and not finished.
  void Recount(PodFacts& pod);
  void CollectGarbage();
  void FinishNamespaces();
  void SyncNodeReadiness();
  SimClock::duration Scaled(double simulated_seconds) const;
  ResourcePtr ResourceFor(const std::string& storage_key);

  Cluster& cluster_;
  SimulatorConfig config_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::map<std::string, PodFacts> pods_;  // "ns/name"
  // The pods a scheduler or kubelet may still act on: not finished, or being
  // deleted. Finished pods stay in pods_ only, so a loop costs what is alive.
  std::map<std::string, PodFacts*> active_;
  // Of those, the ones a scheduler or kubelet may act on without a change:
  // all but bound, running pods with no run time and no deletion. Each round walks
  // these; a cluster of thousands of settled pods costs nothing at rest.
  std::map<std::string, PodFacts*> unsettled_;
  // Pod versions the scheduler and kubelets stored themselves (bindings,
  // Running), whose facts they recorded as they wrote: the feed hands each back
  // once, and reading it is skipped.
  std::unordered_set<const StoredObject*> own_writes_;
  std::map<std::string, NodeFacts> nodes_;
  NodeUse use_;  // what the live pods bound to each node hold of it
  // Garbage collection: owner uid -> dependents ("storage key|ns|name").
  std::map<std::string, std::set<std::string>> dependents_;
  std::unordered_set<std::string> live_uids_;
  std::set<std::string> deleted_owners_;
  std::map<std::string, std::string> finalizing_;  // uid -> "storage|ns|name" (foreground/orphan)
  std::set<std::string> terminating_namespaces_;
};

}  // namespace gpupool::sandbox
