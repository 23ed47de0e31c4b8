// Internal: runs callbacks in order on a thread of their own, so a callback
// that blocks or throws cannot stall the thread that posted it (the leader
// election's renew loop). The worker can be abandoned with a task still
// running: its thread then owns only shared state and ends after that task.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "gpupool/kube/rate_limit.h"

namespace gpupool::kube {

class CallbackWorker {
 public:
  explicit CallbackWorker(std::string name);
  ~CallbackWorker();  // Finish(0) unless finished.
  CallbackWorker(const CallbackWorker&) = delete;
  CallbackWorker& operator=(const CallbackWorker&) = delete;

  // Queues `task`; returns a ticket for Withdraw. Ignored once finished.
  uint64_t Post(std::function<void()> task);
  // Removes a queued task that has not begun; false if it began (or ran).
  bool Withdraw(uint64_t ticket);
  // Waits up to `limit` for every queued task to run, then ends the worker.
  // If a task is still running then, its thread is detached and left to end
  // after that task; tasks still queued are dropped. Returns whether
  // everything ran. Later calls return the first answer.
  bool Finish(Millis limit);
  // Tasks that ended with an exception (caught and logged).
  uint64_t failures() const;

 private:
  struct State {
    std::string name;
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<std::pair<uint64_t, std::function<void()>>> queue;
    uint64_t next_ticket = 1;
    bool running = false;  // A task is executing now.
    bool ending = false;   // Run nothing more once the current task returns.
    uint64_t failures = 0;
  };
  static void Loop(const std::shared_ptr<State>& state);

  std::shared_ptr<State> state_;
  std::thread thread_;
  bool finished_ = false;
  bool all_ran_ = true;
};

}  // namespace gpupool::kube
