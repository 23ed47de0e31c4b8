// prometheus-cpp's Exposer serves collectables only (every path it knows
// answers 200 with metrics text), so it cannot answer /readyz with 503; the
// registry's text comes from prometheus-cpp's TextSerializer
// (ControllerMetrics::Text) and is served here.
#include "gpupool/metrics/http_endpoint.h"

#include <utility>

namespace gpupool::metrics {

constexpr char kMetricsContentType[] = "text/plain; version=0.0.4; charset=utf-8";

ServerLimits ProbeLimits() {
  ServerLimits limits;
  limits.request_deadline = std::chrono::seconds(1);
  limits.answer_deadline = std::chrono::seconds(1);
  limits.max_connections = 32;
  limits.max_request_bytes = 4096;
  return limits;
}

ServerLimits MetricsLimits() {
  ServerLimits limits;
  limits.request_deadline = std::chrono::seconds(1);
  limits.answer_deadline = std::chrono::seconds(10);
  limits.max_connections = 64;
  limits.max_request_bytes = 8192;
  return limits;
}

std::unique_ptr<BoundedHttpServer> ServeMetrics(const BindAddress& address,
                                                std::function<std::string()> metrics_text,
                                                ServerLimits limits, ServerSecurity security) {
  std::map<std::string, GetHandler> routes;
  routes["/metrics"] = [text = std::move(metrics_text)] {
    return HttpAnswer{200, kMetricsContentType, text()};
  };
  return std::make_unique<BoundedHttpServer>(address, std::move(routes), limits,
                                             std::move(security));
}

std::unique_ptr<BoundedHttpServer> ServeProbes(const BindAddress& address, ProbeHandlers handlers,
                                               ServerLimits limits) {
  std::map<std::string, GetHandler> routes;
  routes["/healthz"] = [] { return HttpAnswer{200, "text/plain", "ok\n"}; };
  routes["/readyz"] = [reason_of = std::move(handlers.not_ready_reason),
                       detail_of = std::move(handlers.ready_detail)] {
    const std::string reason = reason_of ? reason_of() : "";
    const std::string detail = detail_of ? detail_of() : "";
    return HttpAnswer{reason.empty() ? 200 : 503, "text/plain",
                      (reason.empty() ? "ok" : reason) + "\n" + detail};
  };
  return std::make_unique<BoundedHttpServer>(address, std::move(routes), limits);
}

}  // namespace gpupool::metrics
