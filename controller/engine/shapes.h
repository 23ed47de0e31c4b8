// Interned job shapes. Jobs that ask for the same thing under the same constraints
// share an id, so the cycle's memos ("this shape found no room") are integer
// lookups instead of string keys.
#pragma once

#include <string>
#include <unordered_map>

namespace gpupool::engine::internal {

struct JobState;

class ShapeTable {
 public:
  // Where a job may run: queue, devices per replica, node selector, GPU models and
  // required topology key. Jobs with one constraint id have one eligible node set.
  int ConstraintOf(const JobState& job);
  // The constraint plus the exact replica request and topology mode: jobs with one
  // shape id fit (or do not fit) in exactly the same places.
  int ShapeOf(const JobState& job);
  // The shape plus replicas, minimum and workload class: of two pending jobs of one
  // project and group, the later one cannot start where the earlier one cannot.
  int GroupOf(const JobState& job);
  std::size_t constraint_count() const { return constraints_.size(); }

 private:
  std::unordered_map<std::string, int> constraints_;
  std::unordered_map<std::string, int> shapes_;
  std::unordered_map<std::string, int> groups_;
};

}  // namespace gpupool::engine::internal
