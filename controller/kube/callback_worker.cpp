#include "callback_worker.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace gpupool::kube {

CallbackWorker::CallbackWorker(std::string name) : state_(std::make_shared<State>()) {
  state_->name = std::move(name);
  // The thread holds its own reference: it may outlive this object (Finish).
  thread_ = std::thread([state = state_] { Loop(state); });
}

CallbackWorker::~CallbackWorker() { Finish(Millis(0)); }

void CallbackWorker::Loop(const std::shared_ptr<State>& state) {
  std::unique_lock lock(state->mutex);
  for (;;) {
    state->changed.wait(lock, [&] { return state->ending || !state->queue.empty(); });
    if (state->ending) return;
    std::function<void()> task = std::move(state->queue.front().second);
    state->queue.pop_front();
    state->running = true;
    lock.unlock();
    try {
      task();
    } catch (const std::exception& error) {
      spdlog::error("{}: callback failed: {}", state->name, error.what());
      std::lock_guard count_lock(state->mutex);
      ++state->failures;
    } catch (...) {
      spdlog::error("{}: callback failed with a non-standard exception", state->name);
      std::lock_guard count_lock(state->mutex);
      ++state->failures;
    }
    lock.lock();
    state->running = false;
    state->changed.notify_all();
  }
}

uint64_t CallbackWorker::Post(std::function<void()> task) {
  std::lock_guard lock(state_->mutex);
  if (state_->ending) return 0;
  uint64_t ticket = state_->next_ticket++;
  state_->queue.emplace_back(ticket, std::move(task));
  state_->changed.notify_all();
  return ticket;
}

bool CallbackWorker::Withdraw(uint64_t ticket) {
  std::lock_guard lock(state_->mutex);
  auto& queue = state_->queue;
  auto it = std::find_if(queue.begin(), queue.end(),
                         [ticket](const auto& entry) { return entry.first == ticket; });
  if (it == queue.end()) return false;
  queue.erase(it);
  return true;
}

bool CallbackWorker::Finish(Millis limit) {
  if (finished_) return all_ran_;
  finished_ = true;
  std::unique_lock lock(state_->mutex);
  all_ran_ = state_->changed.wait_for(lock, limit,
                                      [this] { return state_->queue.empty() && !state_->running; });
  state_->ending = true;
  std::size_t dropped = state_->queue.size();
  state_->queue.clear();
  bool still_running = state_->running;
  state_->changed.notify_all();
  lock.unlock();
  if (still_running) {
    spdlog::warn("{}: a callback still runs after {} ms; left running detached ({} dropped)",
                 state_->name, limit.count(), dropped);
    thread_.detach();
  } else {
    thread_.join();
  }
  return all_ran_;
}

uint64_t CallbackWorker::failures() const {
  std::lock_guard lock(state_->mutex);
  return state_->failures;
}

}  // namespace gpupool::kube
