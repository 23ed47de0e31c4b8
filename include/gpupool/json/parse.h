// Parsing JSON with simdjson into nlohmann values. API objects arrive as JSON
// text on every watch event, list and request; nlohmann's own parser reads
// them a byte at a time, simdjson validates and indexes them in bulk, so
// building the same value from simdjson's index costs a fraction of the time.
// The values are those nlohmann::json::parse builds (non-negative integers
// unsigned, negative ones signed, others floating; a repeated member's last
// value wins). What simdjson does not take (not JSON, an integer beyond 64
// bits, nesting beyond 1,024 levels) is left to nlohmann's parser, so the
// answer for such text is the one it always was.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "gpupool/json/without.h"

namespace gpupool::json {

// The value of `text`; a discarded value (`is_discarded()`) when `text` is not
// exactly one JSON value.
nlohmann::json ParseJson(std::string_view text);

// Parses `text` with simdjson into `out`, leaving out the members at `skipped`
// (see without.h); false, `out` untouched, when simdjson does not take it.
bool ParseFast(std::string_view text, const std::vector<MemberPath>& skipped, nlohmann::json& out);

}  // namespace gpupool::json
