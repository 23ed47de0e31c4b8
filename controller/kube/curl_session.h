// Internal: the libcurl state behind a Transport: pooled easy handles (each
// keeps its connections alive for reuse), shared TLS sessions and DNS cache,
// endpoint rewriting for tls-server-name, token reading.
#pragma once

#include <curl/curl.h>

#include <array>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "gpupool/kube/transport.h"

namespace gpupool::kube {

// Where requests go. With a tls-server-name, URLs name that host (so curl
// verifies it and sends it as SNI) and CONNECT_TO routes them to the real one.
struct Endpoint {
  std::string url_base;     // scheme://host:port[/base-path]
  std::string connect_to;   // "name:port:host:port" or empty
  std::string host_header;  // "Host: host:port" or empty
};

Endpoint ParseEndpoint(const RestConfig& config);

// A bearer token, re-read from its file whenever the file's mtime or size changes.
class TokenSource {
 public:
  explicit TokenSource(const RestConfig& config);
  std::string Current();

 private:
  std::string fixed_;
  std::string file_;
  std::mutex mutex_;
  std::string cached_;
  std::filesystem::file_time_type mtime_{};
  std::uintmax_t size_ = static_cast<std::uintmax_t>(-1);
};

// The header and connect-to lists of one transfer; they must outlive it.
struct CurlLists {
  curl_slist* headers = nullptr;
  curl_slist* connect_to = nullptr;
  CurlLists() = default;
  CurlLists(const CurlLists&) = delete;
  CurlLists& operator=(const CurlLists&) = delete;
  ~CurlLists() {
    curl_slist_free_all(headers);
    curl_slist_free_all(connect_to);
  }
};

// An easy handle with a multi handle of its own. Transfers run on the multi
// handle so the caller can poll for cancellation between socket events
// (curl_easy_perform would block); the multi handle keeps the connections, so
// it stays paired with its easy handle across requests for reuse.
struct PooledHandle {
  CURL* easy = nullptr;
  CURLM* multi = nullptr;
};

// How a transfer on a multi handle ended.
struct TransferEnd {
  CURLcode code = CURLE_OK;
  bool cancelled = false;
};

// Runs `easy` on `multi` to the end, or until `cancel` is cancelled; then
// detaches it (which abandons a cancelled transfer and its connection).
TransferEnd PerformCancellable(CURLM* multi, CURL* easy, const CancelToken& cancel);

// How often waiting transfers look at their cancel token and stop flag.
constexpr int kCancelPollMillis = 20;

struct Transport::Impl {
  Impl(const RestConfig& config, const TransportOptions& options);
  ~Impl();

  PooledHandle AcquireHandle();
  void ReleaseHandle(PooledHandle handle);
  // Sets everything but the callbacks on a fresh or reset handle.
  void Configure(CURL* handle, const HttpRequest& request, bool streaming, CurlLists& lists);

  const RestConfig& config;
  const TransportOptions& options;
  Endpoint endpoint;
  TokenSource tokens;
  CURLSH* share = nullptr;
  std::array<std::mutex, CURL_LOCK_DATA_LAST> share_locks;
  std::mutex pool_mutex;
  std::vector<PooledHandle> idle_handles;
  std::atomic<uint64_t> requests{0}, retries{0}, connections{0};
};

// Maps a failed curl transfer to the ApiError the caller sees; `request_sent`
// tells whether any of the request left (see ApiError::MayHaveBeenApplied).
[[noreturn]] void ThrowCurlError(CURLcode code, const char* detail, const std::string& context,
                                 bool request_sent);
// The error of a request ended by its CancelToken.
ApiError CancelledError(const std::string& context);

}  // namespace gpupool::kube
