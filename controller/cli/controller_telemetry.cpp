#include "controller_telemetry.h"

#include <spdlog/spdlog.h>

#include "gpupool/metrics/cycle_metrics.h"
#include "gpupool/metrics/readiness.h"
#include "gpupool/metrics/token_access_review.h"
#include "gpupool/tls/server_context.h"

namespace gpupool::cli {

metrics::ServerSecurity SecureMetrics(const std::string& cert_dir, const kube::RestConfig& config,
                                      const std::string& user_agent) {
  metrics::ServerSecurity security;
  security.tls = cert_dir.empty()
                     ? tls::ServerContext::SelfSigned({"gpupool-controller-metrics"})
                     : tls::ServerContext::FromFiles(cert_dir + "/tls.crt", cert_dir + "/tls.key");
  // A few reviews a minute per scraper; a flood of made-up tokens waits here,
  // not in the controller's own request budget.
  kube::TransportOptions transport;
  transport.user_agent = user_agent;
  transport.qps = 20;
  transport.burst = 40;
  transport.request_timeout = std::chrono::seconds(5);
  transport.max_retries = 1;
  security.guard = metrics::GuardWith(std::make_shared<metrics::TokenAccessReviewer>(
      metrics::KubeAccessReviews(std::make_unique<kube::Client>(config, transport))));
  return security;
}

ControllerTelemetry::ControllerTelemetry(std::optional<metrics::BindAddress> metrics_address,
                                         std::optional<metrics::BindAddress> probe_address)
    : metrics_address_(std::move(metrics_address)),
      probe_address_(std::move(probe_address)),
      metrics_(std::make_shared<metrics::ControllerMetrics>(GPUPOOL_VERSION)) {}

void ControllerTelemetry::Observe(op::ControllerOptions& options) {
  metrics_->SetLeaderSource(options.is_leader);
  options.observe_cycle = [metrics = metrics_](const op::ClusterView& view, const op::Plan& plan,
                                               const op::WriteStats& written,
                                               const op::CycleReport& report) {
    metrics->RecordCycle(metrics::ComputeCycleMetrics(view, plan, written), report);
  };
}

metrics::ProbeHandlers ControllerTelemetry::ProbeHandlersOf(const op::Controller& controller,
                                                            const kube::LeaderElector* elector,
                                                            const utilization::Scraper* scraper,
                                                            const std::string& identity) const {
  metrics::ProbeHandlers handlers;
  handlers.ready_detail = [scraper] {
    metrics::ReadinessState state;
    if (scraper) {
      const auto readings = scraper->Latest();
      if (!readings->available) state.gpu_metrics_problem = readings->problem;
    }
    return metrics::ReadyDetail(state);
  };
  handlers.not_ready_reason = [&controller, elector, identity] {
    metrics::ReadinessState state;
    state.caches_synced = controller.Synced();
    state.leader_election = elector != nullptr;
    state.leading = elector && elector->IsLeader();
    state.lease_holder = elector ? elector->observed_holder() : "";
    state.identity = identity;
    return metrics::NotReadyReason(state);
  };
  return handlers;
}

ControllerTelemetry::Listeners ControllerTelemetry::Serve(const op::Controller& controller,
                                                          const kube::LeaderElector* elector,
                                                          const utilization::Scraper* scraper,
                                                          const std::string& identity,
                                                          metrics::ServerSecurity security) const {
  Listeners listeners;
  if (metrics_address_) {
    const bool secure = security.tls != nullptr;
    listeners.metrics = metrics::ServeMetrics(
        *metrics_address_, [metrics = metrics_] { return metrics->Text(); },
        metrics::MetricsLimits(), std::move(security));
    spdlog::info("serving /metrics on {}{}",
                 metrics::BindAddress{metrics_address_->host, listeners.metrics->port()}.ToString(),
                 secure ? " over HTTPS to ServiceAccount tokens allowed to get /metrics" : "");
  }
  if (probe_address_) {
    listeners.probes = metrics::ServeProbes(
        *probe_address_, ProbeHandlersOf(controller, elector, scraper, identity));
    spdlog::info("serving /healthz and /readyz on {}",
                 metrics::BindAddress{probe_address_->host, listeners.probes->port()}.ToString());
  }
  return listeners;
}

}  // namespace gpupool::cli
