// Raw TCP clients on 127.0.0.1 that behave as HTTP clients should not:
// partial requests, trickled bytes, oversized headers, many at once.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "gpupool/metrics/bind_address.h"

namespace gpupool::metrics::testing {

// Where the tests' listeners bind: loopback, on a port the kernel picks.
inline const BindAddress kLoopbackAnyPort{"127.0.0.1", 0};

// A connected socket, or -1 when the connection is not up within `timeout`.
int ConnectLoopback(int port, std::chrono::milliseconds timeout);
bool SendAll(int fd, const std::string& bytes);

struct Received {
  std::string bytes;
  bool closed = false;  // The server closed (or reset) the connection.
  double seconds = 0;   // Until closed, or until the timeout.
};
// Reads until the server closes the connection or `timeout` passes.
Received ReadUntilClosed(int fd, std::chrono::milliseconds timeout);

// The status code of an HTTP answer's first line; 0 when there is none.
int StatusOf(const std::string& answer);

struct TimedAnswer {
  int status = 0;  // 0: no complete answer within the timeout.
  std::string body;
  double seconds = 0;
};
// GET `path`, the whole exchange (connect included) within `timeout`.
TimedAnswer TimedGet(int port, const std::string& path, std::chrono::milliseconds timeout);

// `count` connections that each send a request line, then one byte of an
// endless header every `interval`, and never finish. A connection the server
// closes is opened again at once, as an attacker would.
class SlowClients {
 public:
  SlowClients(int port, int count, std::chrono::milliseconds interval);
  ~SlowClients();
  SlowClients(const SlowClients&) = delete;
  SlowClients& operator=(const SlowClients&) = delete;

  int connects() const { return connects_; }
  int bytes_sent() const { return bytes_sent_; }

 private:
  void Run();
  void Tick(std::vector<int>& sockets);

  int port_;
  std::chrono::milliseconds interval_;
  int count_;
  std::atomic<bool> stop_{false};
  std::atomic<int> connects_{0};
  std::atomic<int> bytes_sent_{0};
  std::thread thread_;
};

}  // namespace gpupool::metrics::testing
