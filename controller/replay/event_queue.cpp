#include "event_queue.h"

#include <stdexcept>
#include <string>

namespace gpupool::replay {

bool EventQueue::Later::operator()(const Event& a, const Event& b) const {
  if (a.time != b.time) return a.time > b.time;
  if (a.kind != b.kind) return static_cast<int>(a.kind) > static_cast<int>(b.kind);
  return a.sequence > b.sequence;
}

void EventQueue::Push(Event event) {
  if (event.time < now_) {
    throw std::logic_error("event at " + std::to_string(event.time) + " s is before the clock (" +
                           std::to_string(now_) + " s)");
  }
  event.sequence = next_sequence_++;
  heap_.push(event);
}

Event EventQueue::Pop() {
  Event event = heap_.top();
  heap_.pop();
  now_ = event.time;
  return event;
}

}  // namespace gpupool::replay
