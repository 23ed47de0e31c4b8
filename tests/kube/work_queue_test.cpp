#include "gpupool/kube/work_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "test_util.h"

namespace gpupool::kube {
namespace {

using testing::Numbered;

TEST(WorkQueue, DeduplicatesQueuedKeys) {
  WorkQueue queue;
  queue.Add("a");
  queue.Add("b");
  queue.Add("a");
  EXPECT_EQ(queue.Len(), 2u);
  EXPECT_EQ(queue.Get(), "a");
  EXPECT_EQ(queue.Get(), "b");
}

TEST(WorkQueue, KeyReAddedWhileProcessingWaitsForDone) {
  WorkQueue queue;
  queue.Add("a");
  auto key = queue.Get();
  queue.Add("a");
  EXPECT_EQ(queue.Len(), 0u) << "must not be handed to a second worker";
  queue.Done(*key);
  EXPECT_EQ(queue.Len(), 1u);
  EXPECT_EQ(queue.Get(), "a");
}

TEST(WorkQueue, FailedKeysBackOffExponentially) {
  WorkQueue queue({.item_backoff = {Millis(20), Millis(1'000)}, .qps = 0});
  queue.Add("a");
  std::vector<Millis> delays;
  for (int i = 0; i < 3; ++i) {
    auto key = queue.Get();
    auto failed_at = Clock::now();
    queue.AddRateLimited(*key);
    queue.Done(*key);
    key = queue.Get();
    delays.push_back(std::chrono::duration_cast<Millis>(Clock::now() - failed_at));
    queue.Done(*key);
    queue.Add(*key);
  }
  EXPECT_EQ(queue.Failures("a"), 3);
  EXPECT_GE(delays[0], Millis(19));
  EXPECT_GE(delays[1], Millis(39));
  EXPECT_GE(delays[2], Millis(79));
  queue.Forget("a");
  EXPECT_EQ(queue.Failures("a"), 0);
}

TEST(WorkQueue, AddAfterKeepsTheEarlierDeadline) {
  WorkQueue queue;
  queue.AddAfter("a", Millis(30));
  queue.AddAfter("a", Millis(5'000));
  auto start = Clock::now();
  EXPECT_EQ(queue.Get(), "a");
  EXPECT_LT(Clock::now() - start, Millis(1'000));
}

TEST(WorkQueue, NoKeyIsProcessedByTwoWorkersAtOnce) {
  WorkQueue queue({.qps = 0});
  std::mutex mutex;
  std::map<std::string, int> active, processed;
  std::atomic<bool> overlap{false};
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      while (auto key = queue.Get()) {
        {
          std::lock_guard lock(mutex);
          if (++active[*key] > 1) overlap = true;
          ++processed[*key];
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        {
          std::lock_guard lock(mutex);
          --active[*key];
        }
        queue.Done(*key);
      }
    });
  }
  for (int i = 0; i < 2'000; ++i) queue.Add(Numbered("key-", i % 7));
  while (queue.Len() > 0) std::this_thread::sleep_for(Millis(5));
  queue.ShutDown();
  for (auto& worker : workers) worker.join();
  EXPECT_FALSE(overlap.load());
  EXPECT_EQ(processed.size(), 7u);
}

TEST(WorkQueue, ShutDownReleasesWaitingWorkers) {
  WorkQueue queue;
  std::thread worker([&] { EXPECT_EQ(queue.Get(), std::nullopt); });
  std::this_thread::sleep_for(Millis(20));
  queue.ShutDown();
  worker.join();
  queue.Add("ignored");
  EXPECT_EQ(queue.Len(), 0u);
}

}  // namespace
}  // namespace gpupool::kube
