// When a reflector says that its list or watch requests keep failing with
// errors that heal by themselves (a server that cannot be reached, overload):
// once they have lasted 5 s, then every 30 s while they last. A single drop is
// not worth a warning; an API server out of reach for minutes is.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace gpupool::kube::internal {

class FailureLog {
 public:
  using Clock = std::chrono::steady_clock;

  // A request begun at `began` failed at `now` (after the client's own
  // retries): the seconds the failures have lasted when they are to be said
  // now, else 0.
  std::int64_t Failed(Clock::time_point began, Clock::time_point now) {
    if (failing_since_ == kNever) failing_since_ = began;
    if (now - failing_since_ < kQuiet || (warned_ != kNever && now - warned_ < kEvery)) return 0;
    warned_ = now;
    return std::max<std::int64_t>(
        1, std::chrono::duration_cast<std::chrono::seconds>(now - failing_since_).count());
  }
  // A request succeeded: the next failure starts a new count.
  void Healed() { failing_since_ = warned_ = kNever; }

 private:
  static constexpr std::chrono::seconds kQuiet{5}, kEvery{30};
  static constexpr Clock::time_point kNever = Clock::time_point::min();
  Clock::time_point failing_since_ = kNever, warned_ = kNever;
};

}  // namespace gpupool::kube::internal
