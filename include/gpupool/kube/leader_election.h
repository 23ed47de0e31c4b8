// Leader election on a coordination.k8s.io/v1 Lease. Candidates never trust
// other machines' clocks: a lease held by someone else is taken over only once
// its record has not changed for a whole lease duration of *local* time. The
// leader renews every retry period; if it cannot renew within the renew
// deadline (shorter than the lease duration) it stops acting at once, before
// anyone else may take over. The callbacks run on threads of their own, so one
// that blocks or throws never delays a renewal.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "gpupool/kube/client.h"

namespace gpupool::kube {

struct LeaderElectionConfig {
  std::string lease_namespace;
  std::string lease_name;
  std::string identity;  // Unique per candidate, e.g. the pod name.
  Millis lease_duration{15'000};
  Millis renew_deadline{10'000};
  Millis retry_period{2'000};
  // Each runs on a callback thread of its own, in the order of the terms: the
  // renew loop only queues them. on_stopped_leading of a term runs as soon as
  // leadership is lost, even while that term's on_started_leading is still
  // running (it is how a long-running started callback learns to stop); a
  // term lost before its on_started_leading began delivers neither. A callback
  // that throws is logged and counted (callback_failures); one that never
  // returns delays later callbacks of its kind, never a renewal.
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  // How long Stop waits for queued and running callbacks (see Stop).
  Millis callback_stop_wait{1'000};
};

class CallbackWorker;

class LeaderElector {
 public:
  // Throws std::invalid_argument unless retry_period < renew_deadline < lease_duration.
  LeaderElector(Client& client, LeaderElectionConfig config);
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  void Start();
  // Clean shutdown: stops, and releases the lease if held so a successor
  // need not wait for it to expire. Then waits at most callback_stop_wait
  // for the callbacks (on_stopped_leading included) to run. A callback still
  // running after that is left running on its detached thread, and callbacks
  // queued behind it are dropped: such a callback must not use anything the
  // caller destroys after Stop. Returns within the renew loop's current
  // request plus callback_stop_wait.
  void Stop();
  // Stops without releasing, as a crashed process would.
  void Abandon();

  // True only while leading and within the renew deadline of the last
  // successful renewal (checked on every call, not just by the loop).
  bool IsLeader() const;
  std::string observed_holder() const;
  // Callbacks that ended with an exception.
  uint64_t callback_failures() const;

 private:
  void Run();
  // One attempt to create, take over or renew the lease.
  bool TryAcquireOrRenew();
  bool RenewUntilDeadline();
  void MarkRenewed(Clock::time_point attempt_started);
  bool HeldByOther(const Json& spec, Clock::time_point attempt_started, int default_seconds);
  void BecomeFollower();
  void Release();
  void ReportStartedLeading();
  // Waits for or abandons the callback threads (see Stop).
  void FinishCallbacks();

  Client& client_;
  LeaderElectionConfig config_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> release_on_stop_{true};
  std::thread thread_;
  std::unique_ptr<CallbackWorker> started_callbacks_;
  std::unique_ptr<CallbackWorker> stopped_callbacks_;
  uint64_t started_ticket_ = 0;  // This term's on_started_leading, if queued.

  mutable std::mutex mutex_;
  bool leading_ = false;
  Clock::time_point last_renew_;  // When the last successful renewal was *sent*.
  std::string observed_record_;   // holder + renewTime + transitions, as last seen.
  Clock::time_point observed_at_;
  std::string observed_holder_;
  Millis observed_duration_{0};
};

// Current UTC time as RFC 3339 with microseconds ("2026-01-02T03:04:05.123456Z").
std::string NowMicroTime();
// Current UTC time as RFC 3339 in seconds ("2026-01-02T03:04:05Z").
std::string NowTime();

}  // namespace gpupool::kube
