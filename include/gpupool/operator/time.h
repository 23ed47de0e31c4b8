// Wall-clock times as the API writes them (RFC 3339, UTC) and as the engine
// reads them (seconds since the Unix epoch).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpupool::op {

using EpochSeconds = std::int64_t;

// "2026-01-02T03:04:05Z" (fractional seconds and offsets accepted) → seconds.
std::optional<EpochSeconds> ParseTime(std::string_view text);
// Seconds → "2026-01-02T03:04:05Z".
std::string FormatTime(EpochSeconds seconds);

}  // namespace gpupool::op
