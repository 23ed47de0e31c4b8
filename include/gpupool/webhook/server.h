// The webhook's HTTPS listener: POST /mutate-pods takes an AdmissionReview
// (pod_gate.h). Every replica serves it, leader or not.
#pragma once

#include <memory>

#include "gpupool/metrics/bounded_http_server.h"
#include "gpupool/tls/server_context.h"
#include "gpupool/webhook/pod_gate.h"

namespace gpupool::webhook {

inline constexpr char kMutatePodsPath[] = "/mutate-pods";

// 10 s to send a request (the API server's longest webhook timeout is 30 s,
// its default 10 s), a body of at most 8 MiB (a pod is at most 1.5 MiB, and an
// update carries two), 10 s to take the answer, 256 connections.
metrics::ServerLimits WebhookLimits();

// Binds at once; throws std::runtime_error naming the address when it cannot.
std::unique_ptr<metrics::BoundedHttpServer> ServeWebhook(const metrics::BindAddress& address,
                                                         std::shared_ptr<tls::ServerContext> tls,
                                                         GateSettings settings);

}  // namespace gpupool::webhook
