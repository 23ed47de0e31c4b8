// Kubernetes resource quantities ("500m", "0.5", "2", "16Gi", "1e3") held as
// exact integers in milli-units: all GPU accounting is integer arithmetic.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gpupool::json {

// Parses a quantity into milli-units. Returns std::nullopt and sets *error when
// the text is not a quantity, overflows, or is finer than one milli-unit.
std::optional<int64_t> ParseMilli(std::string_view text, std::string* error);

// Canonical Kubernetes form: "2" for 2000, "500m" for 500.
std::string FormatMilli(int64_t milli);

// Decimal form for people and printer columns: "2", "0.5", "1.25".
std::string FormatDecimal(int64_t milli);

// A quantity as read from an object: its value plus the JSON it was written
// as, so that writing the object back does not rewrite the user's "0.5".
struct Quantity {
  int64_t milli = 0;
  nlohmann::json written;  // null when the value was computed, not read

  static Quantity FromMilli(int64_t milli) { return Quantity{milli, nullptr}; }
  nlohmann::json ToJson() const;
  bool operator==(const Quantity& other) const { return milli == other.milli; }
};

}  // namespace gpupool::json
