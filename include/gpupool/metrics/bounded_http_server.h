// A small HTTP/1.1 server for a fixed set of GET paths whose every request is
// bounded: one thread polls every connection, so a slow client delays nobody;
// a connection has a deadline from accept to the end of its request headers
// and another for its answer; requests past a size limit are refused (431);
// past the connection cap, the oldest connection is closed. One request per
// connection (the answer says "Connection: close").
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "gpupool/metrics/bind_address.h"

namespace gpupool::metrics {

struct HttpAnswer {
  int status = 200;
  std::string content_type = "text/plain";
  std::string body;
};

// Runs on the server's only thread: it must not block.
using GetHandler = std::function<HttpAnswer()>;

struct ServerLimits {
  // From accept to the blank line that ends the request headers.
  std::chrono::milliseconds request_deadline{1000};
  // From the end of the request headers to the last byte of the answer.
  std::chrono::milliseconds answer_deadline{1000};
  std::size_t max_connections = 64;
  // Request line and headers together.
  std::size_t max_request_bytes = 4096;
};

class BoundedHttpServer {
 public:
  // Binds at once and serves `routes` (path without query -> handler) on a
  // thread of its own; throws std::runtime_error naming the address when it
  // cannot bind (a port in use).
  BoundedHttpServer(const BindAddress& address, std::map<std::string, GetHandler> routes,
                    ServerLimits limits);
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
