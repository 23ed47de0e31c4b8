// Test helper: a real Prometheus server on a free loopback port scraping one
// target every second, with its own config and storage in a temporary
// directory; stopped by its PID and cleaned up at scope exit.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "loopback_port.h"

namespace gpupool::metrics::testing {

bool PrometheusInstalled();

class PrometheusProcess {
 public:
  // Starts scraping `target` ("127.0.0.1:PORT") and waits until it is ready;
  // throws std::runtime_error (with its log) when it does not start in 30 s.
  // With `bearer_token`, over HTTPS without verifying the certificate and with
  // that token, as the chart's ServiceMonitor scrapes secure metrics.
  explicit PrometheusProcess(const std::string& target, const std::string& bearer_token = "");
  ~PrometheusProcess();
  PrometheusProcess(const PrometheusProcess&) = delete;
  PrometheusProcess& operator=(const PrometheusProcess&) = delete;

  // The instant vector of `promql` (/api/v1/query): its `result` array.
  nlohmann::json Query(const std::string& promql) const;
  // The sum of the values of `promql`'s result; std::nullopt when it is empty.
  std::optional<double> Value(const std::string& promql) const;
  std::string Log() const;

 private:
  bool Ready() const;
  void Stop();  // SIGTERM to our PID (SIGKILL after 5 s), then removes the directory.

  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

using sandbox::testing::FreeLoopbackPort;

}  // namespace gpupool::metrics::testing
