#include "sandbox/connection_pool.h"

#include <chrono>
#include <thread>

namespace gpupool::sandbox {

ConnectionPool::ConnectionPool(size_t core, size_t max) : core_(core), max_(max) {
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < core_; ++i) StartWorker();
}

ConnectionPool::~ConnectionPool() { shutdown(); }

void ConnectionPool::StartWorker() {
  ++workers_;
  ++idle_;
  // Detached: shutdown() waits for the count of workers to reach zero.
  std::thread([this] { Work(); }).detach();
}

void ConnectionPool::enqueue(std::function<void()> job) {
  std::lock_guard lock(mutex_);
  jobs_.push_back(std::move(job));
  // Every queued job needs an idle worker of its own: one may be a watch
  // that keeps its worker for as long as the client listens.
  if (jobs_.size() > idle_ && workers_ < max_) StartWorker();
  work_ready_.notify_one();
}

void ConnectionPool::shutdown() {
  std::unique_lock lock(mutex_);
  shutting_down_ = true;
  work_ready_.notify_all();
  all_ended_.wait(lock, [this] { return workers_ == 0; });
}

void ConnectionPool::Work() {
  std::unique_lock lock(mutex_);
  while (true) {
    const bool extra = workers_ > core_;
    const auto has_work = [this] { return shutting_down_ || !jobs_.empty(); };
    if (extra) {
      work_ready_.wait_for(lock, std::chrono::seconds(30), has_work);
    } else {
      work_ready_.wait(lock, has_work);
    }
    if (jobs_.empty() && (shutting_down_ || extra)) break;
    if (jobs_.empty()) continue;
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    --idle_;
    lock.unlock();
    job();
    lock.lock();
    ++idle_;
  }
  --idle_;
  --workers_;
  all_ended_.notify_all();
}

}  // namespace gpupool::sandbox
