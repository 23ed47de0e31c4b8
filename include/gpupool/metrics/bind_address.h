// Where one of the controller's HTTP listeners binds: the value of
// --metrics-bind-address and --health-probe-bind-address.
#pragma once

#include <optional>
#include <string>

namespace gpupool::metrics {

struct BindAddress {
  std::string host;  // "0.0.0.0" for every interface.
  int port = 0;      // 0: any free port.
  std::string ToString() const;
};

// "HOST:PORT", ":PORT" (every interface) or "[IPv6]:PORT"; std::nullopt for
// "0" (no endpoint). Throws std::invalid_argument saying what is wrong.
std::optional<BindAddress> ParseBindAddress(const std::string& text);

}  // namespace gpupool::metrics
