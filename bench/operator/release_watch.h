// When each pod of a managed job is released to its node (its admission gate
// gone), seen through a watch on pods.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpupool/kube/client.h"
#include "gpupool/kube/informer.h"

namespace gpupool::bench {

struct PodRelease {
  std::string key;
  bool released = false;  // No admission gate, pinned to a node.
};

class ReleaseWatch {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ReleaseWatch(kube::Client& client);
  ~ReleaseWatch();

  std::size_t Released() const;
  // Moments at which pods were seen released, in order.
  std::vector<Clock::time_point> Times() const;
  // Seconds from `created[key]` (the job's create) to its pod's release, for
  // pods named `<job>-0`.
  std::vector<double> Latencies(
      const std::unordered_map<std::string, Clock::time_point>& created) const;

 private:
  void Observe(const PodRelease& pod);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, Clock::time_point> released_;
  std::vector<Clock::time_point> times_;
  std::unique_ptr<kube::Informer<PodRelease>> informer_;
};

}  // namespace gpupool::bench
