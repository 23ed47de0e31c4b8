#include "gpupool/metrics/bind_address.h"

#include <cctype>
#include <charconv>
#include <stdexcept>

namespace gpupool::metrics {
namespace {

int ParsePort(const std::string& text) {
  int port = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || port < 0 ||
      port > 65535)
    throw std::invalid_argument("port \"" + text + "\" is not a number from 0 to 65535");
  return port;
}

bool IsHostCharacter(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
}

void CheckHost(const std::string& host) {
  for (char c : host)
    if (!IsHostCharacter(c))
      throw std::invalid_argument("host \"" + host + "\" is not a host name or address");
}

}  // namespace

std::string BindAddress::ToString() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::optional<BindAddress> ParseBindAddress(const std::string& text) {
  if (text == "0") return std::nullopt;
  const auto colon = text.rfind(':');
  if (colon == std::string::npos)
    throw std::invalid_argument("\"" + text + "\" is not HOST:PORT, :PORT or 0");
  std::string host = text.substr(0, colon);
  BindAddress address{host, ParsePort(text.substr(colon + 1))};
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    address.host = host.substr(1, host.size() - 2);
    if (address.host.find_first_not_of("0123456789abcdefABCDEF:.") != std::string::npos ||
        address.host.empty())
      throw std::invalid_argument("\"" + host + "\" is not an IPv6 address");
    return address;
  }
  CheckHost(host);
  if (host.empty()) address.host = "0.0.0.0";
  return address;
}

}  // namespace gpupool::metrics
