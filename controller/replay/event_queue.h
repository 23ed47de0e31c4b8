// The simulation clock and its queue of future events. Events at the same time
// come out in kind order (completions free GPUs before arrivals are seen, and
// the scheduling cycle runs last), then in the order they were pushed, so a
// run is deterministic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <queue>
#include <vector>

namespace gpupool::replay {

enum class EventKind : int { kCompletion = 0, kArrival = 1, kCycle = 2 };

struct Event {
  double time = 0;
  EventKind kind = EventKind::kArrival;
  int64_t job = -1;       // index of the job the event is about; -1 for cycles
  uint64_t epoch = 0;     // a completion is stale when the job was preempted since
  uint64_t sequence = 0;  // push order, the last tie-breaker
};

class EventQueue {
 public:
  // Schedules an event; throws std::logic_error for a time before Now().
  void Push(Event event);

  // Removes the earliest event and moves the clock to its time.
  Event Pop();

  bool Empty() const { return heap_.empty(); }
  size_t Size() const { return heap_.size(); }
  const Event& Top() const { return heap_.top(); }
  double Now() const { return now_; }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const;
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  double now_ = 0;
  uint64_t next_sequence_ = 0;
};

}  // namespace gpupool::replay
