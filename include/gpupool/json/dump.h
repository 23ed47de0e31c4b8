// Serializing JSON compactly, fast: the same text as nlohmann's `dump()`
// (no indent, non-ASCII kept, invalid UTF-8 refused) written without its
// per-character output calls. Strings with nothing to escape, the common
// case, are copied whole.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gpupool::json {

// `value.dump()`, byte for byte; throws what it throws (invalid UTF-8).
std::string Dump(const nlohmann::json& value);
// Appends `Dump(value)` to `out`.
void DumpTo(const nlohmann::json& value, std::string& out);

}  // namespace gpupool::json
