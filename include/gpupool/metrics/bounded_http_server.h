// A small HTTP/1.1 server for a fixed set of GET paths (and POST paths taking a
// body) whose every request is bounded: one thread polls every connection, so
// a slow client delays nobody; a connection has a deadline from accept to the
// end of its request (headers and body) and another for its answer; requests
// past a size limit are refused (431 for headers, 413 for a body);
// past the connection cap, the oldest connection is closed. One request per
// connection (the answer says "Connection: close"). Optionally over TLS, and
// optionally behind a guard that decides, without blocking the thread, which
// requests may be answered.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "gpupool/metrics/bind_address.h"

namespace gpupool::tls {
class ServerContext;
}  // namespace gpupool::tls

namespace gpupool::metrics {

struct HttpAnswer {
  int status = 200;
  std::string content_type = "text/plain";
  std::string body;
};

// Runs on the server's only thread: it must not block.
using GetHandler = std::function<HttpAnswer()>;
// Runs on the server's only thread: it must not block. `body` is the whole
// request body, its length given by Content-Length (chunked bodies are refused).
using PostHandler = std::function<HttpAnswer(const std::string& body)>;

// Path without query -> handler. A path is served by one method only.
struct Routes {
  std::map<std::string, GetHandler> get;  // Also answers HEAD.
  std::map<std::string, PostHandler> post;
};

// What a guard knows of a request to a served path.
struct RequestHead {
  std::string method;         // GET, HEAD or POST
  std::string path;           // Without the query.
  std::string authorization;  // The Authorization header's value; "" without one.
};

struct GuardVerdict {
  enum class Kind { kAllowed, kRefused, kPending };
  Kind kind = Kind::kAllowed;
  HttpAnswer refusal;  // The answer when refused.
};

// Runs on the server's thread and must not block. A verdict it cannot give at
// once is kPending: it then calls `wake` (from any thread, at most once per
// pending verdict) when asking again would decide, and the request waits, at
// most its answer deadline (then 503).
using RequestGuard =
    std::function<GuardVerdict(const RequestHead& request, const std::function<void()>& wake)>;

struct ServerLimits {
  // From accept to the blank line that ends the request headers (the TLS
  // handshake included), and on to the end of its body.
  std::chrono::milliseconds request_deadline{1000};
  // From the end of the request headers to the last byte of the answer.
  std::chrono::milliseconds answer_deadline{1000};
  std::size_t max_connections = 64;
  // Request line and headers together.
  std::size_t max_request_bytes = 4096;
  // A POST body; longer ones are refused (413) without being read.
  std::size_t max_body_bytes = 0;
};

struct ServerSecurity {
  std::shared_ptr<tls::ServerContext> tls;  // Null: plain HTTP.
  RequestGuard guard;                       // Empty: every request is answered.
};

class BoundedHttpServer {
 public:
  // Binds at once and serves `routes` (path without query -> handler) on a
  // thread of its own; throws std::runtime_error naming the address when it
  // cannot bind (a port in use).
  BoundedHttpServer(const BindAddress& address, std::map<std::string, GetHandler> routes,
                    ServerLimits limits, ServerSecurity security = {});
  BoundedHttpServer(const BindAddress& address, Routes routes, ServerLimits limits,
                    ServerSecurity security = {});
  ~BoundedHttpServer();
  BoundedHttpServer(const BoundedHttpServer&) = delete;
  BoundedHttpServer& operator=(const BoundedHttpServer&) = delete;

  int port() const { return port_; }

 private:
  struct Loop;
  std::unique_ptr<Loop> loop_;
  int port_ = 0;
};

}  // namespace gpupool::metrics
