#include "sandbox/http/faults.h"

#include <algorithm>

namespace gpupool::sandbox {
namespace {

template <typename Map>
auto Lookup(const Map& map, const std::string& verb) -> typename Map::mapped_type {
  auto it = map.find(verb);
  if (it != map.end()) return it->second;
  it = map.find("*");
  return it == map.end() ? typename Map::mapped_type{} : it->second;
}

}  // namespace

double FaultInjector::Draw() {
  std::lock_guard lock(mutex_);
  return std::uniform_real_distribution<double>(0.0, 1.0)(random_);
}

std::optional<ApiError> FaultInjector::ErrorFor(const std::string& verb) {
  const double rate = Lookup(options_.error_rates, verb);
  if (rate <= 0 || Draw() >= rate || options_.error_codes.empty()) return std::nullopt;
  const size_t pick =
      static_cast<size_t>(Draw() * static_cast<double>(options_.error_codes.size()));
  const int code = options_.error_codes[std::min(pick, options_.error_codes.size() - 1)];
  const std::string why = "injected fault (" + verb + ")";
  if (code == 429)
    return TooManyRequests("too many requests: " + why, options_.retry_after_seconds);
  if (code == 503)
    return ServiceUnavailable("service unavailable: " + why, options_.retry_after_seconds);
  return InternalError(why);
}

int FaultInjector::LatencyMs(const std::string& verb) const {
  return Lookup(options_.latency_ms, verb);
}

bool FaultInjector::DropConnection() {
  return options_.drop_rate > 0 && Draw() < options_.drop_rate;
}

}  // namespace gpupool::sandbox
