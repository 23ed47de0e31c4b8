#include "controller_telemetry.h"

#include <spdlog/spdlog.h>

#include "gpupool/metrics/cycle_metrics.h"
#include "gpupool/metrics/readiness.h"

namespace gpupool::cli {

ControllerTelemetry::ControllerTelemetry(metrics::BindAddress address)
    : address_(std::move(address)),
      metrics_(std::make_shared<metrics::ControllerMetrics>(GPUPOOL_VERSION)) {}

void ControllerTelemetry::Observe(op::ControllerOptions& options) {
  metrics_->SetLeaderSource(options.is_leader);
  options.observe_cycle = [metrics = metrics_](const op::ClusterView& view, const op::Plan& plan,
                                               const op::WriteStats& written,
                                               const op::CycleReport& report) {
    metrics->RecordCycle(metrics::ComputeCycleMetrics(view, plan, written), report);
  };
}

std::unique_ptr<metrics::HttpEndpoint> ControllerTelemetry::Serve(
    const op::Controller& controller, const kube::LeaderElector* elector,
    const utilization::Scraper* scraper, const std::string& identity) const {
  metrics::EndpointHandlers handlers;
  handlers.metrics_text = [metrics = metrics_] { return metrics->Text(); };
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
  auto endpoint = std::make_unique<metrics::HttpEndpoint>(address_, std::move(handlers));
  spdlog::info("serving /metrics, /healthz and /readyz on {}",
               metrics::BindAddress{address_.host, endpoint->port()}.ToString());
  return endpoint;
}

}  // namespace gpupool::cli
