// Shared helpers for the kube tests: fast client options and bounded waits.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <thread>

#include "fake_api_server.h"
#include "gpupool/kube/client.h"

namespace gpupool::kube::testing {

// Small timeouts and backoffs so failure paths stay fast in tests.
inline TransportOptions FastOptions() {
  TransportOptions options;
  options.qps = 0;
  options.connect_timeout = Millis(2'000);
  options.request_timeout = Millis(5'000);
  options.max_retries = 3;
  options.retry_backoff = {Millis(5), Millis(40)};
  options.max_retry_after = Millis(1'500);
  return options;
}

inline RestConfig PlainConfig(const FakeApiServer& server) {
  RestConfig config;
  config.server = server.url();
  config.source = "test";
  return config;
}

// "p7" from ("p", 7). (Spelled out because GCC 12 warns falsely on "p" + to_string.)
inline std::string Numbered(std::string prefix, int number) {
  prefix.append(std::to_string(number));
  return prefix;
}

// Polls `condition` every 5 ms until it holds or `limit` passes.
inline bool WaitFor(const std::function<bool()>& condition,
                    std::chrono::milliseconds limit = std::chrono::milliseconds(5'000)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return condition();
}

inline constexpr char kPodsPath[] = "/api/v1/pods";

// The server's pods (of namespace `ns`, or all when empty) as key -> resourceVersion,
// to compare with what an informer cached.
inline std::map<std::string, std::string> ServerPodVersions(FakeApiServer& server,
                                                            const std::string& ns = "") {
  std::map<std::string, std::string> out;
  for (const auto& [key, object] : server.Objects(kPodsPath))
    if (ns.empty() || NamespaceOf(object) == ns) out[key] = ResourceVersionOf(object);
  return out;
}

}  // namespace gpupool::kube::testing
