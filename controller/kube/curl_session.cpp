#include "curl_session.h"

#include <fstream>
#include <sstream>

#include "gpupool/kube/errors.h"

namespace gpupool::kube {
namespace {

void LockShare(CURL*, curl_lock_data data, curl_lock_access, void* user) {
  static_cast<Transport::Impl*>(user)->share_locks[data].lock();
}
void UnlockShare(CURL*, curl_lock_data data, void* user) {
  static_cast<Transport::Impl*>(user)->share_locks[data].unlock();
}

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_ALL); });
}

bool IsTlsError(CURLcode code) {
  switch (code) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
      return true;
    default:
      return false;
  }
}

}  // namespace

Endpoint ParseEndpoint(const RestConfig& config) {
  const std::string& server = config.server;
  std::size_t scheme_end = server.find("://");
  if (scheme_end == std::string::npos)
    throw ConfigError(config.source + ": bad server URL " + server);
  std::string scheme = server.substr(0, scheme_end);
  std::size_t host_start = scheme_end + 3;
  std::size_t path_start = server.find('/', host_start);
  std::string authority = server.substr(host_start, path_start - host_start);
  std::string base_path = path_start == std::string::npos ? "" : server.substr(path_start);
  std::size_t colon = authority.rfind(':');
  bool has_port = colon != std::string::npos && authority.find(']', colon) == std::string::npos;
  std::string host = has_port ? authority.substr(0, colon) : authority;
  std::string port = has_port ? authority.substr(colon + 1) : (scheme == "https" ? "443" : "80");
  Endpoint endpoint;
  if (config.tls_server_name.empty() || scheme != "https") {
    endpoint.url_base = scheme + "://" + host + ":" + port + base_path;
    return endpoint;
  }
  const std::string& name = config.tls_server_name;
  endpoint.url_base = "https://" + name + ":" + port + base_path;
  endpoint.connect_to = name + ":" + port + ":" + host + ":" + port;
  endpoint.host_header = "Host: " + host + ":" + port;
  return endpoint;
}

TokenSource::TokenSource(const RestConfig& config)
    : fixed_(config.token), file_(config.token_file) {}

std::string TokenSource::Current() {
  if (file_.empty()) return fixed_;
  std::lock_guard lock(mutex_);
  std::error_code error;
  auto mtime = std::filesystem::last_write_time(file_, error);
  auto size = std::filesystem::file_size(file_, error);
  if (error) return cached_;  // Mid-rotation: keep the last token we read.
  if (mtime == mtime_ && size == size_) return cached_;
  std::ifstream in(file_);
  std::ostringstream text;
  text << in.rdbuf();
  std::string token = text.str();
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  cached_ = token;
  mtime_ = mtime;
  size_ = size;
  return cached_;
}

Transport::Impl::Impl(const RestConfig& config_in, const TransportOptions& options_in)
    : config(config_in),
      options(options_in),
      endpoint(ParseEndpoint(config_in)),
      tokens(config_in) {
  GlobalInitOnce();
  share = curl_share_init();
  curl_share_setopt(share, CURLSHOPT_LOCKFUNC, LockShare);
  curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, UnlockShare);
  curl_share_setopt(share, CURLSHOPT_USERDATA, this);
  curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
}

Transport::Impl::~Impl() {
  for (PooledHandle handle : idle_handles) {
    curl_easy_cleanup(handle.easy);
    curl_multi_cleanup(handle.multi);
  }
  curl_share_cleanup(share);
}

PooledHandle Transport::Impl::AcquireHandle() {
  {
    std::lock_guard lock(pool_mutex);
    if (!idle_handles.empty()) {
      PooledHandle handle = idle_handles.back();
      idle_handles.pop_back();
      curl_easy_reset(handle.easy);
      return handle;
    }
  }
  return {curl_easy_init(), curl_multi_init()};
}

void Transport::Impl::ReleaseHandle(PooledHandle handle) {
  std::lock_guard lock(pool_mutex);
  idle_handles.push_back(handle);
}

TransferEnd PerformCancellable(CURLM* multi, CURL* easy, const CancelToken& cancel) {
  TransferEnd end;
  curl_multi_add_handle(multi, easy);
  for (;;) {
    int running = 0;
    curl_multi_perform(multi, &running);
    if (running == 0) {
      int left = 0;
      while (CURLMsg* msg = curl_multi_info_read(multi, &left))
        if (msg->msg == CURLMSG_DONE) end.code = msg->data.result;
      break;
    }
    if (cancel.cancelled()) {
      end.cancelled = true;
      break;
    }
    curl_multi_poll(multi, nullptr, 0, kCancelPollMillis, nullptr);
  }
  curl_multi_remove_handle(multi, easy);
  return end;
}

ApiError CancelledError(const std::string& context) {
  return ApiError(Reason::kCancelled, 0, context + ": cancelled (client shutting down)");
}

void Transport::Impl::Configure(CURL* handle, const HttpRequest& request, bool streaming,
                                CurlLists& lists) {
  std::string url = endpoint.url_base + request.path;
  curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_USERAGENT, options.user_agent.c_str());
  curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options.connect_timeout.count()));
  if (!streaming) {
    curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(options.request_timeout.count()));
    curl_easy_setopt(handle, CURLOPT_SHARE, share);
  }
  curl_easy_setopt(handle, CURLOPT_HTTP_VERSION,
                   options.http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1);
  curl_easy_setopt(handle, CURLOPT_PIPEWAIT, 1L);
  curl_easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, config.insecure_skip_tls_verify ? 0L : 1L);
  curl_easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, config.insecure_skip_tls_verify ? 0L : 2L);
  if (!config.ca_pem.empty()) {
    curl_blob blob{const_cast<char*>(config.ca_pem.data()), config.ca_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(handle, CURLOPT_CAINFO_BLOB, &blob);
  }
  if (!config.client_cert_pem.empty()) {
    curl_blob cert{const_cast<char*>(config.client_cert_pem.data()), config.client_cert_pem.size(),
                   CURL_BLOB_COPY};
    curl_blob key{const_cast<char*>(config.client_key_pem.data()), config.client_key_pem.size(),
                  CURL_BLOB_COPY};
    curl_easy_setopt(handle, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(handle, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(handle, CURLOPT_SSLKEY_BLOB, &key);
    curl_easy_setopt(handle, CURLOPT_SSLKEYTYPE, "PEM");
  }
  if (!endpoint.connect_to.empty()) {
    lists.connect_to = curl_slist_append(nullptr, endpoint.connect_to.c_str());
    curl_easy_setopt(handle, CURLOPT_CONNECT_TO, lists.connect_to);
  }
  curl_slist*& headers = lists.headers;
  headers = curl_slist_append(headers, "Accept: application/json");
  if (!endpoint.host_header.empty())
    headers = curl_slist_append(headers, endpoint.host_header.c_str());
  std::string token = tokens.Current();
  if (!token.empty())
    headers = curl_slist_append(headers, ("Authorization: Bearer " + token).c_str());
  if (request.method != "GET") {
    headers = curl_slist_append(headers, ("Content-Type: " + request.content_type).c_str());
    curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
    curl_easy_setopt(handle, CURLOPT_COPYPOSTFIELDS, request.body.c_str());
  }
  if (request.method != "GET" && request.method != "POST")
    curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  headers = curl_slist_append(headers, "Expect:");  // No 100-continue round trip.
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
}

namespace {

ApiError CurlError(CURLcode code, const std::string& text, const std::string& context) {
  if (IsTlsError(code)) return ApiError(Reason::kTlsFailed, 0, context + ": TLS failure: " + text);
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
      return ApiError(Reason::kConnectFailed, 0, context + ": cannot connect: " + text);
    case CURLE_OPERATION_TIMEDOUT:
      return ApiError(Reason::kTimeout, 0, context + ": timed out: " + text);
    default:
      return ApiError(Reason::kTransport, 0, context + ": transport failure: " + text);
  }
}

}  // namespace

void ThrowCurlError(CURLcode code, const char* detail, const std::string& context,
                    bool request_sent) {
  ApiError error = CurlError(code, detail && *detail ? detail : curl_easy_strerror(code), context);
  error.set_request_sent(request_sent);
  throw error;
}

}  // namespace gpupool::kube
