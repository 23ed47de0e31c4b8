// Reading fields of objects as the API server returned them, for display:
// absent or null fields give a default instead of an error.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace gpupool::cli {

// object[key] as text (a string as it is, any other value as JSON), or `absent`.
std::string TextAt(const nlohmann::json& object, const char* key, const std::string& absent = "");

// object[key] when it is an object, else an empty one.
const nlohmann::json& ObjectAt(const nlohmann::json& object, const char* key);

// object[key] as a quantity in milli-units; nullopt when absent or not a quantity.
std::optional<int64_t> MilliAt(const nlohmann::json& object, const char* key);

}  // namespace gpupool::cli
