// Creates objects at given moments through a few client threads, so one slow
// request does not hold back the ones due after it.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

namespace gpupool::bench {

struct Scheduled {
  double at_seconds = 0;       // From the generator's start.
  std::function<void()> make;  // Announces and creates the object.
};

// Runs every item at or after its moment (sorted by it here), on `threads`
// threads; returns once all have run. Items that throw are counted.
struct GeneratorResult {
  double seconds = 0;      // From start to the last item's end.
  double max_late_ms = 0;  // Largest delay of an item past its moment.
  std::size_t failed = 0;
};
GeneratorResult RunSchedule(std::vector<Scheduled> items, int threads);

}  // namespace gpupool::bench
