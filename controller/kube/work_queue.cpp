#include "gpupool/kube/work_queue.h"

#include <algorithm>

namespace gpupool::kube {

WorkQueue::WorkQueue(WorkQueueOptions options)
    : options_(options), bucket_(options.qps, options.burst) {}

void WorkQueue::AddLocked(const std::string& key) {
  if (shutting_down_ || !dirty_.insert(key).second) return;
  if (processing_.count(key)) return;  // Done() queues it again.
  queue_.push_back(key);
  ready_.notify_one();
}

void WorkQueue::Add(const std::string& key) {
  std::lock_guard lock(mutex_);
  AddLocked(key);
}

void WorkQueue::AddAfter(const std::string& key, Millis delay) {
  if (delay <= Millis::zero()) return Add(key);
  std::lock_guard lock(mutex_);
  if (shutting_down_) return;
  auto when = Clock::now() + delay;
  auto existing = waiting_until_.find(key);
  if (existing != waiting_until_.end()) {
    if (existing->second <= when) return;  // Already due sooner.
    auto range = waiting_.equal_range(existing->second);
    for (auto it = range.first; it != range.second; ++it)
      if (it->second == key) {
        waiting_.erase(it);
        break;
      }
  }
  waiting_until_[key] = when;
  waiting_.emplace(when, key);
  ready_.notify_all();  // A sleeping worker may need to wake earlier.
}

void WorkQueue::AddRateLimited(const std::string& key) {
  Millis item_delay;
  {
    std::lock_guard lock(mutex_);
    item_delay = BackoffCeiling(options_.item_backoff, failures_[key]++);
  }
  auto overall = std::chrono::duration_cast<Millis>(bucket_.Reserve());
  AddAfter(key, std::max(item_delay, overall));
}

void WorkQueue::Forget(const std::string& key) {
  std::lock_guard lock(mutex_);
  failures_.erase(key);
}

int WorkQueue::Failures(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

void WorkQueue::PromoteReadyLocked(Clock::time_point now) {
  while (!waiting_.empty() && waiting_.begin()->first <= now) {
    std::string key = waiting_.begin()->second;
    waiting_.erase(waiting_.begin());
    waiting_until_.erase(key);
    AddLocked(key);
  }
}

std::optional<std::string> WorkQueue::Get() {
  std::unique_lock lock(mutex_);
  for (;;) {
    PromoteReadyLocked(Clock::now());
    if (!queue_.empty()) {
      std::string key = std::move(queue_.front());
      queue_.pop_front();
      dirty_.erase(key);
      processing_.insert(key);
      return key;
    }
    if (shutting_down_) return std::nullopt;
    if (waiting_.empty()) {
      ready_.wait(lock);
    } else {
      ready_.wait_until(lock, waiting_.begin()->first);
    }
  }
}

void WorkQueue::Done(const std::string& key) {
  std::lock_guard lock(mutex_);
  processing_.erase(key);
  if (dirty_.count(key)) {
    queue_.push_back(key);
    ready_.notify_one();
  }
}

void WorkQueue::ShutDown() {
  std::lock_guard lock(mutex_);
  shutting_down_ = true;
  ready_.notify_all();
}

std::size_t WorkQueue::Len() {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

}  // namespace gpupool::kube
