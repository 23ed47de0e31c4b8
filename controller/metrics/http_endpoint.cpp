// One cpp-httplib server serves all three paths. prometheus-cpp's Exposer
// serves collectables only (every path it knows answers 200 with metrics text,
// and its civetweb server is private), so it cannot answer /readyz with 503;
// a second port just for health would make every probe and scrape config name
// two ports. cpp-httplib is already a dependency, and the registry's text
// comes from prometheus-cpp's TextSerializer (ControllerMetrics::Text).
#include "gpupool/metrics/http_endpoint.h"

#include <httplib.h>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace gpupool::metrics {

constexpr char kMetricsContentType[] = "text/plain; version=0.0.4; charset=utf-8";

struct HttpEndpoint::Server {
  httplib::Server http;
  std::thread thread;
};

namespace {

// cpp-httplib's default also sets SO_REUSEPORT, which lets a second process
// bind a port already in use (and share its connections) instead of failing.
void OnlyReuseAddress(socket_t socket) {
  int yes = 1;
  setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof yes);
}

void Route(httplib::Server& http, const EndpointHandlers& handlers) {
  http.Get("/metrics",
           [text = handlers.metrics_text](const httplib::Request&, httplib::Response& response) {
             response.set_content(text(), kMetricsContentType);
           });
  http.Get("/healthz", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("ok\n", "text/plain");
  });
  http.Get("/readyz", [reason_of = handlers.not_ready_reason, detail_of = handlers.ready_detail](
                          const httplib::Request&, httplib::Response& response) {
    const std::string reason = reason_of ? reason_of() : "";
    const std::string detail = detail_of ? detail_of() : "";
    response.status = reason.empty() ? 200 : 503;
    response.set_content((reason.empty() ? "ok" : reason) + "\n" + detail, "text/plain");
  });
}

}  // namespace

HttpEndpoint::HttpEndpoint(const BindAddress& address, EndpointHandlers handlers)
    : server_(std::make_unique<Server>()) {
  Route(server_->http, handlers);
  server_->http.set_socket_options(OnlyReuseAddress);
  if (address.port == 0) {
    port_ = server_->http.bind_to_any_port(address.host);
  } else if (server_->http.bind_to_port(address.host, address.port)) {
    port_ = address.port;
  } else {
    port_ = -1;
  }
  if (port_ < 0)
    throw std::runtime_error("cannot listen on " + address.ToString() +
                             " (the port is in use, or the address is not this machine's)");
  server_->thread = std::thread([server = server_.get()] { server->http.listen_after_bind(); });
  // stop() before the loop runs would be lost, and the destructor would wait forever.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!server_->http.is_running() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

HttpEndpoint::~HttpEndpoint() {
  server_->http.stop();
  if (server_->thread.joinable()) server_->thread.join();
}

}  // namespace gpupool::metrics
