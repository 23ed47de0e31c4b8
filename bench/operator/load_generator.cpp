#include "load_generator.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

namespace gpupool::bench {

GeneratorResult RunSchedule(std::vector<Scheduled> items, int threads) {
  using Clock = std::chrono::steady_clock;
  std::stable_sort(items.begin(), items.end(), [](const Scheduled& a, const Scheduled& b) {
    return a.at_seconds < b.at_seconds;
  });
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  GeneratorResult result;
  const auto start = Clock::now();
  auto work = [&] {
    for (std::size_t i = next++; i < items.size(); i = next++) {
      const auto due = start + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(items[i].at_seconds));
      std::this_thread::sleep_until(due);
      const double late = std::chrono::duration<double, std::milli>(Clock::now() - due).count();
      bool failed = false;
      try {
        items[i].make();
      } catch (const std::exception&) {
        failed = true;
      }
      std::lock_guard lock(mutex);
      result.max_late_ms = std::max(result.max_late_ms, late);
      result.failed += failed;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& thread : pool) thread.join();
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace gpupool::bench
