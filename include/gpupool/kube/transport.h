// HTTP(S) to one API server over libcurl: pooled connections (HTTP/2 when the
// server offers it), TLS verification by default, bearer tokens re-read when
// their file rotates, client certificates, client-side rate limiting, and
// retries with backoff for the failures that heal (429, 500, 503, 504,
// connection errors) — never for other 4xx.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "gpupool/kube/config.h"
#include "gpupool/kube/rate_limit.h"

namespace gpupool::kube {

struct TransportOptions {
  Millis connect_timeout{5'000};
  Millis request_timeout{30'000};
  double qps = 50;  // <= 0: no client-side limit.
  int burst = 100;
  int max_retries = 5;
  BackoffPolicy retry_backoff{Millis(200), Millis(10'000)};
  Millis max_retry_after{30'000};  // A longer Retry-After is capped to this.
  bool http2 = true;
  std::string user_agent = "gpupool";
};

struct HttpRequest {
  std::string method = "GET";
  std::string path;  // Path and query, e.g. "/api/v1/pods?limit=5".
  std::string body;
  std::string content_type = "application/json";
};

struct HttpResponse {
  int status = 0;
  std::string body;
  long http_version = 0;  // CURL_HTTP_VERSION_* of the response (2 for HTTP/1.1, 3 for HTTP/2).
};

struct TransportStats {
  uint64_t requests = 0;  // Attempts sent, retries included.
  uint64_t retries = 0;
  uint64_t connections = 0;  // New connections opened.
};

class Transport {
 public:
  Transport(RestConfig config, TransportOptions options = {});
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Sends the request, retrying retryable failures. Returns 2xx responses;
  // throws ApiError for anything else (decoded from the Status body).
  HttpResponse Send(const HttpRequest& request);

  // Sends a streaming request (a watch) without retries: `on_data` receives the
  // body in arbitrary pieces as it arrives, and returns false to end the
  // stream. Returns when the server ends the body, when `stop` becomes true or
  // `on_data` returns false (kStopped), or when nothing arrived for `idle_timeout`
  // (a silent connection is treated as dead). Throws ApiError on a non-2xx
  // status or a transport failure.
  enum class StreamEnd { kServerClosed, kStopped, kIdle };
  StreamEnd Stream(const HttpRequest& request, const std::function<bool(std::string_view)>& on_data,
                   const std::atomic<bool>& stop, Millis idle_timeout);

  TransportStats stats() const;
  const RestConfig& config() const { return config_; }
  const TransportOptions& options() const { return options_; }

  struct Impl;

 private:
  HttpResponse SendOnce(const HttpRequest& request);

  RestConfig config_;
  TransportOptions options_;
  TokenBucket limiter_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpupool::kube
