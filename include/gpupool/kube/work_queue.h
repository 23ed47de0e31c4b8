// A de-duplicating, rate-limited work queue of object keys for reconcilers.
// A key added many times before a worker takes it is processed once; a key is
// never handed to two workers at once (re-adds while processing wait until
// Done); failed keys come back after a per-key exponential backoff, and all
// re-queues also pass an overall token bucket.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "gpupool/kube/rate_limit.h"

namespace gpupool::kube {

struct WorkQueueOptions {
  BackoffPolicy item_backoff{Millis(5), Millis(1'000'000)};
  double qps = 10;  // Overall limit on rate-limited re-queues; <= 0: none.
  int burst = 100;
};

class WorkQueue {
 public:
  explicit WorkQueue(WorkQueueOptions options = {});

  void Add(const std::string& key);
  void AddAfter(const std::string& key, Millis delay);
  // Re-queues a key that failed: after its backoff (which grows per failure).
  void AddRateLimited(const std::string& key);
  // The key succeeded: its backoff starts over.
  void Forget(const std::string& key);
  int Failures(const std::string& key);

  // Blocks until a key is ready or the queue shuts down (nullopt). The caller
  // must call Done(key) when finished with it.
  std::optional<std::string> Get();
  void Done(const std::string& key);

  // Wakes all waiting workers; Get returns nullopt once the queue is drained.
  void ShutDown();
  std::size_t Len();

 private:
  void AddLocked(const std::string& key);
  void PromoteReadyLocked(Clock::time_point now);

  WorkQueueOptions options_;
  TokenBucket bucket_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::string> queue_;
  std::unordered_set<std::string> dirty_;       // Queued or waiting to be re-queued after Done.
  std::unordered_set<std::string> processing_;  // Handed to a worker, not yet Done.
  std::multimap<Clock::time_point, std::string> waiting_;
  std::unordered_map<std::string, Clock::time_point> waiting_until_;
  std::unordered_map<std::string, int> failures_;
  bool shutting_down_ = false;
};

}  // namespace gpupool::kube
