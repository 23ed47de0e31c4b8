#include "sandbox/http/connection_pool.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
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

// A kept-alive connection's wait for its next request, in place of the one in
// Debian's cpp-httplib 0.11 (`httplib::detail::keep_alive`, which the library
// calls through its PLT, so the program's definition is the one that runs).
// That one polls the socket for 10 ms and sleeps 1 ms in turn: every idle
// connection woke its worker ~180 times a second, 6 % of the sandbox's CPU
// under load. This one sleeps in one poll until a request comes, the client
// leaves, or the keep-alive timeout ends the connection, as before.
namespace httplib::detail {

bool keep_alive(socket_t sock, time_t keep_alive_timeout_sec) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(keep_alive_timeout_sec);
  pollfd socket{sock, POLLIN, 0};
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    const int ready = poll(&socket, 1, static_cast<int>(std::min<long long>(left, INT_MAX)));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return false;
  }
}

}  // namespace httplib::detail
