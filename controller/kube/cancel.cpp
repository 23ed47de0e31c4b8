#include "gpupool/kube/cancel.h"

namespace gpupool::kube {

void CancelToken::Cancel() {
  {
    // Taken so a sleeper between its check and its wait cannot miss the wake-up.
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  changed_.notify_all();
}

bool CancelToken::SleepFor(Clock::duration duration) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, duration, [this] { return cancelled_.load(); });
  return !cancelled_.load();
}

}  // namespace gpupool::kube
