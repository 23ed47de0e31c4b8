#include "gpupool/kube/rate_limit.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>

namespace gpupool::kube {

TokenBucket::TokenBucket(double qps, int burst)
    : qps_(qps), burst_(std::max(1, burst)), tokens_(std::max(1, burst)), last_(Clock::now()) {}

void TokenBucket::RefillLocked(Clock::time_point now) {
  double elapsed = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
}

Clock::duration TokenBucket::Reserve() {
  if (qps_ <= 0) return Clock::duration::zero();
  std::lock_guard lock(mutex_);
  RefillLocked(Clock::now());
  tokens_ -= 1;
  if (tokens_ >= 0) return Clock::duration::zero();
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(-tokens_ / qps_));
}

double TokenBucket::AvailableShare() {
  if (qps_ <= 0) return 1;
  std::lock_guard lock(mutex_);
  RefillLocked(Clock::now());
  return tokens_ / burst_;
}

void TokenBucket::Acquire() {
  Clock::duration wait = Reserve();
  if (wait > Clock::duration::zero()) std::this_thread::sleep_for(wait);
}

bool TokenBucket::TryAcquire() {
  if (qps_ <= 0) return true;
  std::lock_guard lock(mutex_);
  RefillLocked(Clock::now());
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

Millis BackoffCeiling(const BackoffPolicy& policy, int attempt) {
  double delay = static_cast<double>(policy.initial.count()) * std::pow(policy.factor, attempt);
  return Millis(static_cast<int64_t>(std::min(delay, static_cast<double>(policy.max.count()))));
}

Backoff::Backoff(BackoffPolicy policy) : policy_(policy) {}

// One generator per thread, seeded once: a Backoff is made for every request,
// and seeding a generator each time cost more than the request's own work.
Millis Backoff::Next() {
  thread_local std::mt19937_64 random(std::random_device{}());
  Millis ceiling = BackoffCeiling(policy_, attempt_);
  if (attempt_ < 62) ++attempt_;
  int64_t half = ceiling.count() / 2;
  std::uniform_int_distribution<int64_t> jitter(0, ceiling.count() - half);
  return Millis(half + jitter(random));
}

}  // namespace gpupool::kube
