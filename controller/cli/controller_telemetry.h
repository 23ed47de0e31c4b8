// `gpupool controller`'s metrics and health endpoint, wired to its API client
// (requests, watch restarts), its cycles and its leadership.
#pragma once

#include <memory>
#include <string>

#include "gpupool/kube/leader_election.h"
#include "gpupool/metrics/controller_metrics.h"
#include "gpupool/metrics/http_endpoint.h"
#include "gpupool/operator/controller.h"
#include "gpupool/utilization/scraper.h"

namespace gpupool::cli {

class ControllerTelemetry {
 public:
  explicit ControllerTelemetry(metrics::BindAddress address);

  // For the API client's TransportOptions.
  std::shared_ptr<kube::ClientObserver> client_observer() const { return metrics_; }
  // Records every cycle the controller built with `options` runs, and its leadership.
  void Observe(op::ControllerOptions& options);
  // Binds the address and serves until the endpoint is destroyed; throws
  // std::runtime_error when it cannot bind. `controller` and `elector` (null
  // without leader election) must outlive the endpoint.
  std::unique_ptr<metrics::HttpEndpoint> Serve(const op::Controller& controller,
                                               const kube::LeaderElector* elector,
                                               const utilization::Scraper* scraper,
                                               const std::string& identity) const;

 private:
  metrics::BindAddress address_;
  std::shared_ptr<metrics::ControllerMetrics> metrics_;
};

}  // namespace gpupool::cli
