// The writer's worker pool: every task once, several at a time, batch after batch.
#include "gpupool/operator/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

namespace gpupool::op {
namespace {

TEST(WorkerPool, RunsEveryTaskOnceBatchAfterBatch) {
  WorkerPool pool(4);
  for (std::size_t count : {0u, 1u, 3u, 100u, 1000u}) {
    std::vector<std::atomic<int>> runs(count);
    pool.ForEach(count, [&](std::size_t i) { ++runs[i]; });
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(runs[i].load(), 1) << count << " " << i;
  }
}

// Four tasks that each wait for all four to have started can only finish when
// they run at the same time.
TEST(WorkerPool, RunsTasksOfABatchAtTheSameTime) {
  WorkerPool pool(4);
  std::mutex mutex;
  std::condition_variable all_started;
  int started = 0;
  std::atomic<int> met{0};
  pool.ForEach(4, [&](std::size_t) {
    std::unique_lock lock(mutex);
    ++started;
    all_started.notify_all();
    if (all_started.wait_for(lock, std::chrono::seconds(10), [&] { return started == 4; })) ++met;
  });
  EXPECT_EQ(met.load(), 4);
}

TEST(WorkerPool, OneThreadRunsTheBatchOnTheCaller) {
  WorkerPool pool(1);
  EXPECT_EQ(pool.threads(), 1);
  const auto caller = std::this_thread::get_id();
  int on_caller = 0;
  pool.ForEach(5, [&](std::size_t) { on_caller += std::this_thread::get_id() == caller; });
  EXPECT_EQ(on_caller, 5);
}

}  // namespace
}  // namespace gpupool::op
