// A string hash that is the same in every process and run (FNV-1a, 64 bits), for
// names and identities derived from other names.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpupool {

inline std::uint64_t StableHash(std::string_view text) {
  std::uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

}  // namespace gpupool
