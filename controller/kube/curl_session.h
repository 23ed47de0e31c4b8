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

struct Transport::Impl {
  Impl(const RestConfig& config, const TransportOptions& options);
  ~Impl();

  CURL* AcquireHandle();
  void ReleaseHandle(CURL* handle);
  // Sets everything but the callbacks on a fresh or reset handle.
  void Configure(CURL* handle, const HttpRequest& request, bool streaming, CurlLists& lists);

  const RestConfig& config;
  const TransportOptions& options;
  Endpoint endpoint;
  TokenSource tokens;
  CURLSH* share = nullptr;
  std::array<std::mutex, CURL_LOCK_DATA_LAST> share_locks;
  std::mutex pool_mutex;
  std::vector<CURL*> idle_handles;
  std::atomic<uint64_t> requests{0}, retries{0}, connections{0};
};

// Maps a failed curl transfer to the ApiError the caller sees.
[[noreturn]] void ThrowCurlError(CURLcode code, const char* detail, const std::string& context);

}  // namespace gpupool::kube
