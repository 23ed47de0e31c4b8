#include "gpupool/operator/worker_pool.h"

namespace gpupool::op {

WorkerPool::WorkerPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { Work(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  for (auto& worker : workers_) worker.join();
}

void WorkerPool::ForEach(std::size_t count, const std::function<void(std::size_t)>& task) {
  if (count == 0) return;
  std::unique_lock lock(mutex_);
  task_ = &task;
  count_ = count;
  next_ = finished_ = 0;
  ++batch_;
  if (count > 1) work_.notify_all();
  Drain(lock);
  done_.wait(lock, [&] { return finished_ == count_; });
  task_ = nullptr;
}

void WorkerPool::Drain(std::unique_lock<std::mutex>& lock) {
  while (task_ && next_ < count_) {
    const std::size_t index = next_++;
    const auto* task = task_;
    lock.unlock();
    (*task)(index);
    lock.lock();
    if (++finished_ == count_) done_.notify_all();
  }
}

void WorkerPool::Work() {
  std::unique_lock lock(mutex_);
  unsigned long seen = 0;
  while (true) {
    work_.wait(lock, [&] { return stopping_ || batch_ != seen; });
    if (stopping_) return;
    seen = batch_;
    Drain(lock);
  }
}

}  // namespace gpupool::op
