// HTTP(S) to one API server over libcurl: pooled connections (HTTP/2 when the
// server offers it), TLS verification by default, bearer tokens re-read when
// their file rotates, client certificates, client-side rate limiting, and
// retries with backoff for the failures that heal (429, 500, 503, 504,
// connection errors) — never for other 4xx, and never a repeat of a write
// that is unsafe to repeat after a failure that may have applied it.
// Cancel() ends everything in flight at once (shutdown).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "gpupool/kube/cancel.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/rate_limit.h"

namespace gpupool::kube {

class ApiError;
class ClientObserver;

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
  // Shared with other transports or the owner's shutdown path; null: the
  // transport makes its own (reachable through Transport::Cancel).
  std::shared_ptr<CancelToken> cancel;
  // Told of every request attempt and watch restart (metrics); null: nobody.
  std::shared_ptr<ClientObserver> observer;
};

// Whether a request may be sent again after an ambiguous failure (sent, no
// complete answer, or 500/504: see ApiError::MayHaveBeenApplied). Failures
// that are definite (cannot connect, 429, 503) are retried for every request.
enum class RepeatSafety {
  // GET, HEAD and PUT are repeated (a PUT replaces the object with the same
  // body; with its resourceVersion a repeat of an applied PUT meets Conflict,
  // never writes twice). POST, PATCH and DELETE are not.
  kByVerb,
  // The caller knows a repeat cannot act twice: a create of a named object
  // (the server refuses a second one), a patch with a resourceVersion
  // precondition, server-side apply, a delete with preconditions.
  kSafe,
  // Never repeated after an ambiguous failure, whatever the verb.
  kNever,
};

struct HttpRequest {
  std::string method = "GET";
  std::string path;  // Path and query, e.g. "/api/v1/pods?limit=5".
  std::string body;
  std::string content_type = "application/json";
  RepeatSafety repeat = RepeatSafety::kByVerb;
};

// Whether `request` may be sent again after an ambiguous failure.
bool SafeToRepeat(const HttpRequest& request);

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

  // Sends the request, retrying retryable failures (an ambiguous one only when
  // SafeToRepeat). Returns 2xx responses; throws ApiError for anything else
  // (decoded from the Status body), kCancelled once cancelled.
  HttpResponse Send(const HttpRequest& request);

  // Sends a streaming request (a watch) without retries: `on_data` receives the
  // body in arbitrary pieces as it arrives, and returns false to end the
  // stream. Returns when the server ends the body, when `stop` becomes true or
  // `on_data` returns false (kStopped), or when nothing arrived for `idle_timeout`
  // (a silent connection is treated as dead). Throws ApiError on a non-2xx
  // status or a transport failure, kCancelled once cancelled.
  enum class StreamEnd { kServerClosed, kStopped, kIdle };
  StreamEnd Stream(const HttpRequest& request, const std::function<bool(std::string_view)>& on_data,
                   const std::atomic<bool>& stop, Millis idle_timeout);

  // Ends every request, stream and wait of this transport (and of every other
  // sharing its CancelToken) within ~20 ms with ApiError(kCancelled); later
  // requests fail the same way at once. Final.
  void Cancel() { cancel_->Cancel(); }
  bool cancelled() const { return cancel_->cancelled(); }
  const std::shared_ptr<CancelToken>& cancel_token() const { return cancel_; }

  TransportStats stats() const;
  // TokenBucket::AvailableShare of the client-side rate limit.
  double RateLimitHeadroom() { return limiter_.AvailableShare(); }
  const RestConfig& config() const { return config_; }
  const TransportOptions& options() const { return options_; }

  struct Impl;

 private:
  HttpResponse SendOnce(const HttpRequest& request);
  // Waits for the client-side rate limit unless cancelled first.
  void AcquireRateToken(const std::string& context);
  void ReportAttempt(const HttpRequest& request, long status, Clock::time_point started) const;
  // Whether a failed attempt is sent again; throws kCancelled if cancelled.
  bool ShouldRetry(const HttpRequest& request, const ApiError& error, int attempt) const;

  RestConfig config_;
  TransportOptions options_;
  std::shared_ptr<CancelToken> cancel_;
  TokenBucket limiter_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpupool::kube
