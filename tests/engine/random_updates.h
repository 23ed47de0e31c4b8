// Random changes of a live cluster, for the property tests: nodes added, changed
// (cordoned, relabelled, unmanaged GPUs) and removed; quotas, queues and projects
// changed, deleted and created again; pending specs changed; jobs recreated under
// their name; replicas lost; admissions undone; terminating victims gone.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>

#include "gpupool/engine/engine.h"

namespace gpupool::engine::testing {

class RandomUpdates {
 public:
  explicit RandomUpdates(std::uint64_t seed) : rng_(seed * 7919 + 1) {}
  // A few random updates to `engine`, consistent with what a cluster could report
  // (unmanaged pods only take devices nobody uses). `unmanaged`: whole GPUs of
  // unmanaged pods by node, as the cluster says (kept up to date here).
  void Apply(Engine& engine, std::map<std::string, int>& unmanaged);

 private:
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  void ChangeNode(Engine& engine, const Snapshot& s, std::map<std::string, int>& unmanaged);
  void ChangeSpecs(Engine& engine, const Snapshot& s);
  void ChangeJobs(Engine& engine, const Snapshot& s);

  std::mt19937_64 rng_;
  int next_node_ = 0;
  bool build_removed_ = false;
  Queue build_queue_;
};

}  // namespace gpupool::engine::testing
