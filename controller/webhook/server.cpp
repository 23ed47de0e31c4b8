#include "gpupool/webhook/server.h"

namespace gpupool::webhook {

metrics::ServerLimits WebhookLimits() {
  metrics::ServerLimits limits;
  limits.request_deadline = std::chrono::seconds(10);
  limits.answer_deadline = std::chrono::seconds(10);
  limits.max_connections = 256;
  limits.max_request_bytes = 16 * 1024;
  limits.max_body_bytes = 8 * 1024 * 1024;
  return limits;
}

std::unique_ptr<metrics::BoundedHttpServer> ServeWebhook(const metrics::BindAddress& address,
                                                         std::shared_ptr<tls::ServerContext> tls,
                                                         GateSettings settings) {
  metrics::Routes routes;
  routes.post[kMutatePodsPath] = [settings = std::move(settings)](const std::string& body) {
    const ReviewAnswer answer = ReviewPod(body, settings);
    return metrics::HttpAnswer{
        answer.status, answer.status == 200 ? "application/json" : "text/plain", answer.body};
  };
  metrics::ServerSecurity security;
  security.tls = std::move(tls);
  return std::make_unique<metrics::BoundedHttpServer>(address, std::move(routes), WebhookLimits(),
                                                      std::move(security));
}

}  // namespace gpupool::webhook
