// The controller loop: informers over Queues, Projects, TrainingJobs, Nodes,
// Pods and gang Services feed one level-triggered cycle (caches → ClusterView →
// PlanCycle → PlanWriter). Events are batched: a cycle starts at most
// `batch_window` after the first event of a burst, never two at a time, and
// writes finish before the next cycle reads, so a slow API server delays cycles
// instead of piling them up. With `pause_per_plan`, a cycle that planned for
// long is followed by a pause in proportion.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "gpupool/kube/client.h"
#include "gpupool/kube/event_recorder.h"
#include "gpupool/kube/informer.h"
#include "gpupool/operator/cluster_view.h"
#include "gpupool/operator/plan.h"
#include "gpupool/operator/writer.h"

namespace gpupool::op {

struct CycleReport {
  std::size_t jobs = 0, admitted = 0, preempted = 0, writes = 0, failed = 0;
  std::size_t deferred = 0;  // Job statuses left to the next cycle (not built).
  std::size_t deferred_pods =
      0;  // Gated pods left to the next (PlanOptions::gated_pods_per_cycle).
  std::size_t left_for_limit = 0;  // WriteStats' pods_ and statuses_left_for_limit.
  double plan_ms = 0, write_ms = 0;
  bool engine_rebuilt = false;  // The engine was built from the snapshot, not followed.
  // From the last informer event before the cycle to the end of its writes.
  double event_to_done_ms = 0;
};

struct ControllerOptions {
  PlanOptions plan;
  std::chrono::milliseconds quiet{20};          // A burst ends after this long without events.
  std::chrono::milliseconds batch_window{100};  // A burst never delays a cycle longer.
  // After a cycle, events wait at least this many times its planning time: on
  // a cluster large enough for planning to be slow, the controller plans less
  // often, each time for more changes, and spends less CPU; events wait longer.
  double pause_per_plan = 0;
  std::chrono::seconds resync{30};             // A cycle at least this often.
  std::chrono::milliseconds cache_wait{2000};  // Longest wait for the caches to show our writes.
  std::function<bool()> is_leader;             // Empty: always leading.
  // False when the installation creates the PriorityClasses the pods name
  // (and grants no create): the controller then never asks for them.
  bool create_priority_classes = true;
  int concurrent_writes = 8;  // Requests in flight at once within a step.
  // At most this many job statuses that neither admit nor free anything per
  // cycle, plus one per job it admits and an eighth of the others (0: no
  // limit); the rest follow in the next cycles (PlanOptions::status_writes_per_cycle).
  std::size_t status_writes_per_cycle = 64;
  // At most this many gated pods created per cycle (0: no limit); the rest
  // follow in the next cycles (PlanOptions::gated_pods_per_cycle).
  std::size_t gated_pods_per_cycle = 256;
  std::function<void(const CycleReport&)> on_cycle;  // Benchmarks and logs.
  // The last GPU utilization reading (a scraper's); empty: none configured.
  std::function<utilization::SharedReadings()> gpu_readings;
  // After every cycle's writes: what it read, planned and wrote (metrics).
  std::function<void(const ClusterView&, const Plan&, const WriteStats&, const CycleReport&)>
      observe_cycle;
};

class Controller {
 public:
  Controller(kube::Client& client, kube::EventRecorder* events, ControllerOptions options);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Starts the informers and waits for their first lists; false on timeout, or as
  // soon as `stop` (if given) becomes true.
  bool Start(std::chrono::milliseconds sync_timeout, const std::atomic<bool>* stop = nullptr);
  // Runs cycles until `stop` becomes true (checked at least every 100 ms).
  void Run(const std::atomic<bool>& stop);
  // One cycle now, whatever changed (tests, and the first cycle after Start).
  CycleReport RunCycle();
  bool Synced() const;

  ClusterView View() const;
  // Wakes the loop (an informer event).
  void Notify();

 private:
  void WaitForWork(const std::atomic<bool>& stop);
  void WaitForCaches();
  std::map<std::pair<Kind, std::string>, std::string> VersionsBefore(const Plan& plan) const;
  std::string CachedVersion(Kind kind, const std::string& key) const;

  kube::Client& client_;
  ControllerOptions options_;
  PlanWriter writer_;
  engine::LiveEngine engine_;
  std::size_t status_turn_ = 0;  // Where the next cycle's status budget starts.
  std::unique_ptr<kube::Informer<QueueObject>> queues_;
  std::unique_ptr<kube::Informer<ProjectObject>> projects_;
  std::unique_ptr<kube::Informer<DepartmentObject>> departments_;
  std::unique_ptr<kube::Informer<JobObject>> jobs_;
  std::unique_ptr<kube::Informer<NodeObject>> nodes_;
  std::unique_ptr<kube::Informer<PodView>> pods_;
  std::unique_ptr<kube::Informer<char>> services_;
  // The owners of grouped pods, one informer per kind of OwnerKinds(), started
  // where the server serves that kind when the controller starts: the size and
  // place in the queue of their pods' gangs.
  struct OwnerInformer {
    std::unique_ptr<kube::Informer<OwnerObject>> informer;
    bool served = false;
  };
  std::vector<OwnerInformer> owners_;
  // Asks the server which it serves (one request each), unless told to stop.
  void StartOwnerInformers(const std::atomic<bool>* stop);

  std::mutex mutex_;
  std::condition_variable wake_;
  bool dirty_ = true;
  std::chrono::steady_clock::time_point first_event_{}, last_event_{};
  EpochSeconds wake_at_ = 0;
  std::chrono::steady_clock::time_point next_cycle_at_{};  // The pause after the last cycle.
  bool priority_classes_ready_ = false;
  std::vector<std::pair<std::pair<Kind, std::string>, std::string>> expected_;
};

}  // namespace gpupool::op
