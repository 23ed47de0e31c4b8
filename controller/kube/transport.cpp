#include "gpupool/kube/transport.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <thread>

#include "curl_session.h"
#include "gpupool/kube/errors.h"

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

Transport::Transport(RestConfig config, TransportOptions options)
    : config_(std::move(config)),
      options_(std::move(options)),
      limiter_(options_.qps, options_.burst),
      impl_(std::make_unique<Impl>(config_, options_)) {}

Transport::~Transport() = default;

TransportStats Transport::stats() const {
  return {impl_->requests.load(), impl_->retries.load(), impl_->connections.load()};
}

HttpResponse Transport::Send(const HttpRequest& request) {
  Backoff backoff(options_.retry_backoff);
  for (int attempt = 0;; ++attempt) {
    try {
      return SendOnce(request);
    } catch (const ApiError& error) {
      if (!error.IsRetryable() || attempt >= options_.max_retries) throw;
      Millis delay = backoff.Next();
      if (error.retry_after_seconds())
        delay = std::min<Millis>(std::chrono::seconds(*error.retry_after_seconds()),
                                 options_.max_retry_after);
      spdlog::debug("{} (attempt {}), retrying in {} ms", error.what(), attempt + 1, delay.count());
      ++impl_->retries;
      std::this_thread::sleep_for(delay);
    }
  }
}

HttpResponse Transport::SendOnce(const HttpRequest& request) {
  limiter_.Acquire();
  ++impl_->requests;
  CURL* handle = impl_->AcquireHandle();
  CurlLists lists;
  impl_->Configure(handle, request, /*streaming=*/false, lists);
  Collector collector;
  char error_text[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error_text);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, CollectBody);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &collector);
  curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, CollectHeader);
  curl_easy_setopt(handle, CURLOPT_HEADERDATA, &collector);
  CURLcode code = curl_easy_perform(handle);
  long status = 0, version = 0, connects = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_getinfo(handle, CURLINFO_HTTP_VERSION, &version);
  curl_easy_getinfo(handle, CURLINFO_NUM_CONNECTS, &connects);
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, nullptr);
  impl_->ReleaseHandle(handle);
  impl_->connections += static_cast<uint64_t>(connects);
  std::string context = Describe(request) + " on " + config_.server;
  if (code != CURLE_OK) ThrowCurlError(code, error_text, context);
  if (status < 200 || status >= 300)
    throw DecodeStatusError(static_cast<int>(status), collector.body, context,
                            collector.retry_after);
  return {static_cast<int>(status), std::move(collector.body), version};
}

}  // namespace gpupool::kube
