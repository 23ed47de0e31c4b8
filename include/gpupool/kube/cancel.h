// Shutdown of everything a client is doing at once. A CancelToken is shared by
// a transport and the code that owns it: cancelling it makes every request in
// flight, every watch stream and every retry or rate-limit wait return within
// one poll interval (about 20 ms) with ApiError(Reason::kCancelled), and every
// later request fail the same way at once. Cancellation is final: a shut-down
// client is not revived.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "gpupool/kube/rate_limit.h"

namespace gpupool::kube {

class CancelToken {
 public:
  void Cancel();
  bool cancelled() const { return cancelled_.load(); }

  // Sleeps for `duration` unless cancelled first; returns false when cancelled
  // (at once, without sleeping, if it already was).
  bool SleepFor(Clock::duration duration);

 private:
  std::atomic<bool> cancelled_{false};
  std::mutex mutex_;
  std::condition_variable changed_;
};

}  // namespace gpupool::kube
