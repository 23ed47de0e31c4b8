// The controller's HTTP endpoint: /metrics (Prometheus text format), /healthz
// (the process answers: 200) and /readyz (200 when ready, else 503 with the
// reason on one line), all on one address.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace gpupool::metrics {

struct BindAddress {
  std::string host;  // "0.0.0.0" for every interface.
  int port = 0;      // 0: any free port.
  std::string ToString() const;
};

// "HOST:PORT", ":PORT" (every interface) or "[IPv6]:PORT"; std::nullopt for
// "0" (no endpoint). Throws std::invalid_argument saying what is wrong.
std::optional<BindAddress> ParseBindAddress(const std::string& text);

struct EndpointHandlers {
  std::function<std::string()> metrics_text;
  // "" when ready, else why not (one line).
  std::function<std::string()> not_ready_reason;
  // Lines after the first of /readyz's answer, ready or not ("" for none).
  std::function<std::string()> ready_detail;
};

class HttpEndpoint {
 public:
  // Binds at once and serves on a thread of its own; throws std::runtime_error
  // naming the address when it cannot bind (a port in use).
  HttpEndpoint(const BindAddress& address, EndpointHandlers handlers);
  ~HttpEndpoint();
  HttpEndpoint(const HttpEndpoint&) = delete;
  HttpEndpoint& operator=(const HttpEndpoint&) = delete;

  int port() const { return port_; }

 private:
  struct Server;
  std::unique_ptr<Server> server_;
  int port_ = 0;
};

}  // namespace gpupool::metrics
