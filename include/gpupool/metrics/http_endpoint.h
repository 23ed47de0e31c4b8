// The controller's two HTTP listeners, each a BoundedHttpServer:
//  - metrics: /metrics (Prometheus text format);
//  - probes: /healthz (the process answers: 200) and /readyz (200 when ready,
//    else 503 with the reason on one line).
// Probes have a listener of their own so that nothing done to the metrics
// port (scrapes, slow or hostile clients) can fail a liveness probe.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "gpupool/metrics/bind_address.h"
#include "gpupool/metrics/bounded_http_server.h"

namespace gpupool::metrics {

struct ProbeHandlers {
  // "" when ready, else why not (one line).
  std::function<std::string()> not_ready_reason;
  // Lines after the first of /readyz's answer, ready or not ("" for none).
  std::function<std::string()> ready_detail;
};

// 1 s to send the request headers (at most 4 KiB), 1 s to take the answer,
// 32 connections.
ServerLimits ProbeLimits();
// 1 s to send the request headers (at most 8 KiB), 10 s to take the answer,
// 64 connections.
ServerLimits MetricsLimits();

// Both bind at once and serve on a thread of their own; they throw
// std::runtime_error naming the address when they cannot bind.
// `security`: HTTPS and a guard on /metrics (secure metrics); plain by default.
std::unique_ptr<BoundedHttpServer> ServeMetrics(const BindAddress& address,
                                                std::function<std::string()> metrics_text,
                                                ServerLimits limits = MetricsLimits(),
                                                ServerSecurity security = {});
std::unique_ptr<BoundedHttpServer> ServeProbes(const BindAddress& address, ProbeHandlers handlers,
                                               ServerLimits limits = ProbeLimits());

}  // namespace gpupool::metrics
