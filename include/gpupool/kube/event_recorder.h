// Records Kubernetes Events about objects. Uses events.k8s.io/v1 when the
// server serves it, else core/v1. Repeats of the same event (same object,
// type, reason and message) within the aggregation window update the first
// event's count instead of creating new ones; each object gets a token bucket
// so a hot loop cannot flood the API server. Sending happens on a background
// thread: recording never blocks a reconciler.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "gpupool/kube/client.h"

namespace gpupool::kube {

struct ObjectReference {
  std::string api_version;
  std::string kind;
  std::string ns;
  std::string name;
  std::string uid;
};

struct EventRecorderOptions {
  std::string reporting_controller = "gpupool.dev/controller";
  std::string reporting_instance;
  double per_object_qps = 1.0 / 300;  // Sustained events per object...
  int per_object_burst = 25;          // ...after this many at once.
  Millis aggregation_window{10 * 60 * 1000};
  std::size_t max_queued = 1000;  // Beyond this, new events are dropped.
};

struct EventRecorderStats {
  uint64_t created = 0;
  uint64_t aggregated = 0;  // Repeats folded into an existing event's count.
  uint64_t dropped = 0;     // Rate-limited, queue full, or failed to send.
  bool using_events_v1 = false;
};

class EventRecorder {
 public:
  EventRecorder(Client& client, EventRecorderOptions options = {});
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // `type` is "Normal" or "Warning"; `action` what was done (e.g. "Preempt").
  void Record(const ObjectReference& object, const std::string& type, const std::string& reason,
              const std::string& action, const std::string& message);
  // Waits until everything recorded so far has been sent (or timeout).
  bool Flush(Millis timeout);
  EventRecorderStats stats() const;

 private:
  struct Pending {
    ObjectReference object;
    std::string type, reason, action, message;
  };
  struct Sent {
    std::string ns, name;
    int count = 1;
    Clock::time_point first;
  };

  void Run();
  void Send(const Pending& event);
  void Create(const Pending& event, const std::string& key);
  void Aggregate(Sent& sent);
  bool Allowed(const ObjectReference& object);
  void PruneExpired(Clock::time_point now);
  bool UseEventsV1();

  Client& client_;
  EventRecorderOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Pending> queue_;
  bool busy_ = false;
  bool stop_ = false;
  std::map<std::string, Sent> sent_;  // Aggregation key → the event created for it.
  std::map<std::string, std::unique_ptr<TokenBucket>> buckets_;  // Per object.
  int api_ = 0;  // 0: not yet probed, 1: events.k8s.io/v1, 2: core/v1.
  EventRecorderStats stats_;
  std::thread thread_;
};

}  // namespace gpupool::kube
