// The nodes a job may run on, worked out once per constraint and kept in the state
// (ClusterState::eligible); within a cycle, jobs of one queue and node selector share
// the selector's matches.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "state.h"

namespace gpupool::engine::internal {

class Eligibility {
 public:
  explicit Eligibility(ClusterState& state) : state_(state) {}

  const ClusterState::EligibleSet& Of(const JobState& job);
  // The eligible nodes in order, and per node whether it is one of them.
  const std::vector<int>& Nodes(const JobState& job) { return Of(job).nodes; }
  const std::vector<char>* Member(const JobState& job) { return &Of(job).member; }

 private:
  ClusterState& state_;
  // SelectorMatches by queue and (interned) selector, for this cycle's new eligible sets.
  std::map<std::pair<int, const Labels*>, std::vector<char>> selector_matches_;
};

}  // namespace gpupool::engine::internal
