#include "gpupool/kube/transport.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>

#include "curl_session.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/observer.h"

namespace gpupool::kube {
namespace {

struct Collector {
  std::string body;
  std::optional<int> retry_after;
};

size_t CollectBody(char* data, size_t size, size_t count, void* user) {
  static_cast<Collector*>(user)->body.append(data, size * count);
  return size * count;
}

// Reads "Retry-After: <seconds>" (the HTTP-date form is not used by API servers).
size_t CollectHeader(char* data, size_t size, size_t count, void* user) {
  std::string_view line(data, size * count);
  constexpr std::string_view kName = "retry-after:";
  if (line.size() > kName.size()) {
    std::string lower(line.substr(0, kName.size()));
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    if (lower == kName) {
      std::string_view value = line.substr(kName.size());
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      int seconds = 0;
      auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
      if (error == std::errc() && seconds >= 0)
        static_cast<Collector*>(user)->retry_after = seconds;
    }
  }
  return size * count;
}

std::string Describe(const HttpRequest& request) {
  std::string path = request.path.substr(0, request.path.find('?'));
  return request.method + " " + path;
}

}  // namespace

bool SafeToRepeat(const HttpRequest& request) {
  switch (request.repeat) {
    case RepeatSafety::kSafe:
      return true;
    case RepeatSafety::kNever:
      return false;
    case RepeatSafety::kByVerb:
      break;
  }
  return request.method == "GET" || request.method == "HEAD" || request.method == "PUT";
}

Transport::Transport(RestConfig config, TransportOptions options)
    : config_(std::move(config)),
      options_(std::move(options)),
      cancel_(options_.cancel ? options_.cancel : std::make_shared<CancelToken>()),
      limiter_(options_.qps, options_.burst),
      impl_(std::make_unique<Impl>(config_, options_)) {}

Transport::~Transport() = default;

TransportStats Transport::stats() const {
  return {impl_->requests.load(), impl_->retries.load(), impl_->connections.load()};
}

bool Transport::ShouldRetry(const HttpRequest& request, const ApiError& error, int attempt) const {
  if (cancel_->cancelled()) throw CancelledError(Describe(request) + " on " + config_.server);
  if (!error.IsRetryable() || attempt >= options_.max_retries) return false;
  if (error.MayHaveBeenApplied() && !SafeToRepeat(request)) {
    spdlog::debug("{}: may have been applied; not repeated", error.what());
    return false;
  }
  return true;
}

HttpResponse Transport::Send(const HttpRequest& request) {
  Backoff backoff(options_.retry_backoff);
  bool ambiguous_before = false;
  for (int attempt = 0;; ++attempt) {
    try {
      return SendOnce(request);
    } catch (ApiError& error) {
      error.set_after_ambiguous_attempt(ambiguous_before);
      if (!ShouldRetry(request, error, attempt)) throw;
      ambiguous_before = ambiguous_before || error.MayHaveBeenApplied();
      Millis delay = backoff.Next();
      if (error.retry_after_seconds())
        delay = std::min<Millis>(std::chrono::seconds(*error.retry_after_seconds()),
                                 options_.max_retry_after);
      spdlog::debug("{} (attempt {}), retrying in {} ms", error.what(), attempt + 1, delay.count());
      ++impl_->retries;
      if (!cancel_->SleepFor(delay))
        throw CancelledError(Describe(request) + " on " + config_.server);
    }
  }
}

void Transport::AcquireRateToken(const std::string& context) {
  if (cancel_->cancelled()) throw CancelledError(context);
  Clock::duration wait = limiter_.Reserve();
  if (wait > Clock::duration::zero() && !cancel_->SleepFor(wait)) throw CancelledError(context);
}

void Transport::ReportAttempt(const HttpRequest& request, long status,
                              Clock::time_point started) const {
  if (!options_.observer) return;
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  options_.observer->OnRequest({request.method, static_cast<int>(status), seconds});
}

HttpResponse Transport::SendOnce(const HttpRequest& request) {
  std::string context = Describe(request) + " on " + config_.server;
  AcquireRateToken(context);
  const auto started = Clock::now();
  ++impl_->requests;
  PooledHandle handle = impl_->AcquireHandle();
  CurlLists lists;
  impl_->Configure(handle.easy, request, /*streaming=*/false, lists);
  Collector collector;
  char error_text[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(handle.easy, CURLOPT_ERRORBUFFER, error_text);
  curl_easy_setopt(handle.easy, CURLOPT_WRITEFUNCTION, CollectBody);
  curl_easy_setopt(handle.easy, CURLOPT_WRITEDATA, &collector);
  curl_easy_setopt(handle.easy, CURLOPT_HEADERFUNCTION, CollectHeader);
  curl_easy_setopt(handle.easy, CURLOPT_HEADERDATA, &collector);
  TransferEnd end = PerformCancellable(handle.multi, handle.easy, *cancel_);
  long status = 0, version = 0, connects = 0, request_size = 0;
  curl_easy_getinfo(handle.easy, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_getinfo(handle.easy, CURLINFO_HTTP_VERSION, &version);
  curl_easy_getinfo(handle.easy, CURLINFO_NUM_CONNECTS, &connects);
  curl_easy_getinfo(handle.easy, CURLINFO_REQUEST_SIZE, &request_size);
  curl_easy_setopt(handle.easy, CURLOPT_ERRORBUFFER, nullptr);
  impl_->ReleaseHandle(handle);
  impl_->connections += static_cast<uint64_t>(connects);
  if (!end.cancelled) ReportAttempt(request, status, started);
  if (end.cancelled) {
    ApiError error = CancelledError(context);
    error.set_request_sent(request_size > 0);
    throw error;
  }
  if (end.code != CURLE_OK) ThrowCurlError(end.code, error_text, context, request_size > 0);
  if (status < 200 || status >= 300)
    throw DecodeStatusError(static_cast<int>(status), collector.body, context,
                            collector.retry_after);
  return {static_cast<int>(status), std::move(collector.body), version};
}

}  // namespace gpupool::kube
