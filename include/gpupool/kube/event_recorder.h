// Records Kubernetes Events about objects. Uses events.k8s.io/v1 when the
// server serves it, else core/v1. Repeats of the same event (same object,
// type, reason and message) within the aggregation window update the first
// event's count instead of creating new ones; each object gets a token bucket
// so a hot loop cannot flood the API server. Sending happens on a background
// thread: recording never blocks a reconciler. On shutdown what is queued is
// sent for a bounded time, then dropped and counted.
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
  std::string reporting_instance;     // Empty: this machine's host name (the pod name in a pod).
  double per_object_qps = 1.0 / 300;  // Sustained events per object...
  int per_object_burst = 25;          // ...after this many at once.
  Millis aggregation_window{10 * 60 * 1000};
  std::size_t max_queued = 1000;  // Beyond this, new events are dropped.
  // Objects whose rate limit is remembered. A limit idle long enough to have
  // refilled is forgotten (that changes nothing); beyond this many, the
  // longest idle are forgotten first, so a busy object stays limited.
  std::size_t max_tracked_objects = 10'000;
  Millis drain_timeout{2'000};  // How long Stop keeps sending what is queued.
};

struct EventRecorderStats {
  uint64_t created = 0;
  uint64_t aggregated = 0;           // Repeats folded into an existing event's count.
  uint64_t dropped = 0;              // Rate-limited, queue full, failed, or left at shutdown.
  uint64_t dropped_at_shutdown = 0;  // Of `dropped`: still queued or in flight when Stop ended.
  bool using_events_v1 = false;
};

// The API's limit on an event's note (events.k8s.io/v1 validation), in bytes.
constexpr std::size_t kMaxEventNoteBytes = 1024;
// `text` cut to at most `max_bytes` bytes, never inside a UTF-8 character.
std::string TruncateUtf8(const std::string& text, std::size_t max_bytes);
// This machine's host name ("" if it cannot be read).
std::string HostName();

class EventRecorder {
 public:
  // Sends through a transport of its own, made from `client`'s configuration
  // and options, so that Stop can cut a send in flight at its deadline
  // without cancelling anything of the caller's.
  EventRecorder(Client& client, EventRecorderOptions options = {});
  ~EventRecorder();  // Stop().
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // `type` is "Normal" or "Warning"; `action` what was done (e.g. "Preempt").
  void Record(const ObjectReference& object, const std::string& type, const std::string& reason,
              const std::string& action, const std::string& message);
  // Waits until everything recorded so far has been sent (or timeout).
  bool Flush(Millis timeout);
  // Stops recording (later events are dropped and counted) and sends what is
  // queued for at most drain_timeout; then cancels a send in flight and drops
  // the rest, counting it in dropped_at_shutdown. Idempotent.
  void Stop();
  EventRecorderStats stats() const;
  const std::string& reporting_instance() const { return options_.reporting_instance; }

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
  struct ObjectLimit {
    std::unique_ptr<TokenBucket> bucket;
    Clock::time_point last_used;
  };

  void Run();
  void DrainAndStop();
  void Send(const Pending& event);
  void Create(const Pending& event, const std::string& key);
  void Aggregate(Sent& sent);
  bool Allowed(const ObjectReference& object);
  void PruneExpired(Clock::time_point now);
  // Forgets rate limits as EventRecorderOptions::max_tracked_objects says.
  void PruneLimitsLocked(Clock::time_point now);
  bool UseEventsV1();

  EventRecorderOptions options_;
  Client client_;  // On a transport of its own (see the constructor).
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Pending> queue_;
  bool busy_ = false;
  bool stop_ = false;                 // The sender thread ends once the queue is empty.
  bool accepting_ = true;             // Record queues (false from Stop on).
  std::map<std::string, Sent> sent_;  // Aggregation key → the event created for it.
  static constexpr std::size_t kMinSentBeforePrune = 4096;
  std::size_t prune_sent_at_ = kMinSentBeforePrune;  // sent_ is scanned when it outgrows this.
  std::map<std::string, ObjectLimit> limits_;        // Per object.
  int api_ = 0;  // 0: not yet probed, 1: events.k8s.io/v1, 2: core/v1.
  EventRecorderStats stats_;
  std::once_flag stopped_once_;
  std::thread thread_;
};

}  // namespace gpupool::kube
