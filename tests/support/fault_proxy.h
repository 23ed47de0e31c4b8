// A plain-HTTP proxy in front of a real API server that breaks what the
// sandbox's --fault-* flags break, so that the fault tests run on real
// control planes too: a share of requests answered with an error (500, 503
// or 429 with Retry-After, as the sandbox's defaults) instead of being
// forwarded; every watch cut after a time; and "compactions" that end every
// open watch with 410 Expired, as a real server's watch does when the
// history it needs is compacted away. A client under test talks to it
// through kubeconfig(); everything else talks to the server directly.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "test_cluster.h"

namespace gpupool::backends::testing {

struct Faults {
  double error_rate = 0;         // share of requests refused
  double watch_cut_seconds = 0;  // 0: watches end when the server ends them
  double compact_seconds = 0;    // 0: no compactions
  uint64_t seed = 1;

  // From the sandbox's flags (--fault-error-rate R, --fault-watch-cut S,
  // --fault-compact S); other flags are left alone.
  static Faults FromSandboxFlags(const std::vector<std::string>& flags);
  bool any() const { return error_rate > 0 || watch_cut_seconds > 0 || compact_seconds > 0; }
};

class FaultProxy {
 public:
  FaultProxy(const TestCluster& upstream, Faults faults);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  // A kubeconfig for the proxy, with the upstream's admin token.
  const std::string& kubeconfig() const { return kubeconfig_; }
  uint64_t errors_injected() const;
  uint64_t watches_cut() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
  std::string kubeconfig_;
};

}  // namespace gpupool::backends::testing
