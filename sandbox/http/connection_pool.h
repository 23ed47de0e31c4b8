// The HTTP server's workers. httplib gives each connection a worker for its
// whole life, and a watch lives for minutes: a fixed pool lets a few dozen
// watches starve every other client. This pool keeps `core` workers ready
// and starts another whenever every worker is busy, up to `max`; the extra
// ones end after a while without work.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

namespace gpupool::sandbox {

class ConnectionPool : public httplib::TaskQueue {
 public:
  ConnectionPool(size_t core, size_t max);
  ~ConnectionPool() override;

  void enqueue(std::function<void()> job) override;
  // Lets queued jobs finish, then waits for every worker to end.
  void shutdown() override;

 private:
  void StartWorker();  // caller holds mutex_
  void Work();

  const size_t core_;
  const size_t max_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable all_ended_;
  std::deque<std::function<void()>> jobs_;
  size_t workers_ = 0;
  size_t idle_ = 0;
  bool shutting_down_ = false;
};

}  // namespace gpupool::sandbox
