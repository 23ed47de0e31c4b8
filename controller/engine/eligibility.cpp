#include "eligibility.h"

#include <memory>

#include "placement.h"

namespace gpupool::engine::internal {
namespace {

// A job holding only what decides where it may run (queue, size, selector, models,
// topology).
JobState ConstraintProbe(const JobState& job) {
  JobState probe;
  probe.queue = job.queue;
  probe.shape = job.shape;
  probe.node_selector = job.node_selector;
  probe.gpu_models = job.gpu_models;
  probe.topology = job.topology;
  return probe;
}

}  // namespace

const ClusterState::EligibleSet& Eligibility::Of(const JobState& job) {
  auto id = static_cast<std::size_t>(state_.shapes.ConstraintOf(job));
  auto& sets = state_.eligible;
  if (sets.size() <= id) sets.resize(id + 1);
  if (!sets[id]) {
    auto set = std::make_unique<ClusterState::EligibleSet>();
    set->probe = ConstraintProbe(job);
    if (job.queue < 0) {
      set->nodes = EligibleNodes(state_, job);
    } else {
      auto [matches, added] = selector_matches_.try_emplace({job.queue, job.node_selector});
      if (added) matches->second = SelectorMatches(state_, job);
      set->nodes = EligibleNodes(state_, job, &matches->second);
    }
    set->member.assign(state_.nodes.size(), 0);
    for (int n : set->nodes) set->member[n] = 1;
    sets[id] = std::move(set);
  }
  return *sets[id];
}

}  // namespace gpupool::engine::internal
