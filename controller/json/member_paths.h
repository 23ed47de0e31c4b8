// Matching a member against skipped member paths (without.h), shared by
// the two parsers that leave members out.
#pragma once

#include <string_view>
#include <vector>

#include "gpupool/json/without.h"

namespace gpupool::json::internal {

// Stands in `above` for an array item, which has no name: no path passes it.
inline constexpr std::string_view kNoName{"\0[]", 3};

// Whether member `name` is on one of `skipped`'s paths; `above` holds the names
// of the members it is inside, outermost first.
inline bool OnSkippedPath(const std::vector<MemberPath>& skipped,
                          const std::vector<std::string_view>& above, std::string_view name) {
  for (const auto& path : skipped) {
    if (path.size() != above.size() + 1) continue;
    bool match = path.back() == "*" || path.back() == name;
    for (std::size_t i = 0; match && i < above.size(); ++i) {
      match = above[i].data() != kNoName.data() && (path[i] == "*" || path[i] == above[i]);
    }
    if (match) return true;
  }
  return false;
}

}  // namespace gpupool::json::internal
