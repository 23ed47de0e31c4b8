// `gpupool controller`'s metrics and health probe listeners, wired to its API client
// (requests, watch restarts), its cycles and its leadership.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "gpupool/kube/config.h"
#include "gpupool/kube/leader_election.h"
#include "gpupool/metrics/controller_metrics.h"
#include "gpupool/metrics/http_endpoint.h"
#include "gpupool/operator/controller.h"
#include "gpupool/utilization/scraper.h"

namespace gpupool::cli {

// Secure metrics: HTTPS with the certificate in `cert_dir` (tls.crt, tls.key;
// read again when they change) or one generated at start when it is "", and
// only bearer tokens whose user may `get` the path /metrics, asked of the API
// server `config` names by TokenReview and SubjectAccessReview.
metrics::ServerSecurity SecureMetrics(const std::string& cert_dir, const kube::RestConfig& config,
                                      const std::string& user_agent);

class ControllerTelemetry {
 public:
  // Either address may be absent: that listener is not served.
  ControllerTelemetry(std::optional<metrics::BindAddress> metrics_address,
                      std::optional<metrics::BindAddress> probe_address);

  struct Listeners {
    std::unique_ptr<metrics::BoundedHttpServer> metrics;  // /metrics
    std::unique_ptr<metrics::BoundedHttpServer> probes;   // /healthz, /readyz
  };

  // For the API client's TransportOptions.
  std::shared_ptr<kube::ClientObserver> client_observer() const { return metrics_; }
  // Records every cycle the controller built with `options` runs, and its leadership.
  void Observe(op::ControllerOptions& options);
  // Binds the addresses and serves until the listeners are destroyed; throws
  // std::runtime_error when it cannot bind. `controller`, `elector` (null
  // without leader election) and `scraper` (null without one) must outlive
  // them. `metrics_security`: /metrics over HTTPS behind its guard, or plain.
  Listeners Serve(const op::Controller& controller, const kube::LeaderElector* elector,
                  const utilization::Scraper* scraper, const std::string& identity,
                  metrics::ServerSecurity metrics_security) const;

 private:
  metrics::ProbeHandlers ProbeHandlersOf(const op::Controller& controller,
                                         const kube::LeaderElector* elector,
                                         const utilization::Scraper* scraper,
                                         const std::string& identity) const;

  std::optional<metrics::BindAddress> metrics_address_;
  std::optional<metrics::BindAddress> probe_address_;
  std::shared_ptr<metrics::ControllerMetrics> metrics_;
};

}  // namespace gpupool::cli
