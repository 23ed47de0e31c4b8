// Token-bucket rate limiting and exponential backoff with jitter, shared by
// the HTTP transport, the work queue and the event recorder.
#pragma once

#include <chrono>
#include <mutex>

namespace gpupool::kube {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

// Allows `burst` calls at once, then `qps` per second. qps <= 0: unlimited.
class TokenBucket {
 public:
  TokenBucket(double qps, int burst);

  // Blocks until a token is available, then takes it.
  void Acquire();
  // Takes a token if one is available now.
  bool TryAcquire();
  // Takes a token, possibly one not yet earned; returns how long the caller
  // must wait before using it (zero when one was available).
  Clock::duration Reserve();
  // The share of the burst that could be taken now without waiting: 1 when
  // full (or unlimited), 0 or less while callers wait for tokens not yet earned.
  double AvailableShare();

 private:
  void RefillLocked(Clock::time_point now);

  double qps_;
  double burst_;
  double tokens_;
  Clock::time_point last_;
  std::mutex mutex_;
};

struct BackoffPolicy {
  Millis initial{200};
  Millis max{10'000};
  double factor = 2.0;
};

// Exponential backoff with "equal jitter": attempt n waits a uniformly random
// time in [d/2, d] where d = min(initial * factor^n, max). The jitter keeps
// many clients that failed together from retrying together.
class Backoff {
 public:
  explicit Backoff(BackoffPolicy policy = {});

  Millis Next();
  void Reset() { attempt_ = 0; }
  int attempt() const { return attempt_; }

 private:
  BackoffPolicy policy_;
  int attempt_ = 0;
};

// The un-jittered delay of attempt `attempt` (0-based) under `policy`.
Millis BackoffCeiling(const BackoffPolicy& policy, int attempt);

}  // namespace gpupool::kube
