// A fixed set of threads that run one batch of independent tasks at a time:
// the writer's way to keep several requests in flight within one step of a
// plan. The calling thread works on the batch too and returns once all of it
// is done.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpupool::op {

class WorkerPool {
 public:
  // `threads` in all, the caller included: 1 runs every batch on the caller.
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs task(0) … task(count - 1), each once, in no particular order; the
  // tasks must not throw. Not reentrant: one batch at a time.
  void ForEach(std::size_t count, const std::function<void(std::size_t)>& task);

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

 private:
  void Work();
  // Takes and runs tasks of the current batch until none is left.
  void Drain(std::unique_lock<std::mutex>& lock);

  std::mutex mutex_;
  std::condition_variable work_, done_;
  const std::function<void(std::size_t)>* task_ = nullptr;
  std::size_t count_ = 0, next_ = 0, finished_ = 0;
  unsigned long batch_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace gpupool::op
