#include "numeric_flag.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace gpupool::cli {
namespace {

// Every digit of the bounds ("[-1000000, 1000000]", "[0.001, 64]"), never an
// exponent.
std::string RangeText(double min, double max) {
  char text[64];
  std::snprintf(text, sizeof text, "[%.15g, %.15g]", min, max);
  return text;
}

}  // namespace

int IntFlag(const std::string& flag, const std::string& text, int min, int max) {
  long long value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty())
    throw UsageError(flag + ": \"" + text + "\" is not an integer");
  if (value < min || value > max)
    throw UsageError(flag + ": " + text + " is outside " + RangeText(min, max));
  return static_cast<int>(value);
}

double DoubleFlag(const std::string& flag, const std::string& text, double min, double max) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty() ||
      !std::isfinite(value))
    throw UsageError(flag + ": \"" + text + "\" is not a number");
  if (value < min || value > max)
    throw UsageError(flag + ": " + text + " is outside " + RangeText(min, max));
  return value;
}

std::string NameFlag(const std::string& flag, const std::string& text) {
  const auto allowed = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  bool valid = !text.empty() && text.size() <= 63 && allowed(text.front()) && allowed(text.back());
  for (char c : text) valid = valid && (allowed(c) || c == '-');
  if (!valid)
    throw UsageError(flag + ": must be a lower-case RFC 1123 label (a-z, 0-9, '-'), got \"" + text +
                     "\"");
  return text;
}

std::string NonEmptyFlag(const std::string& flag, const std::string& text) {
  if (text.empty()) throw UsageError(flag + ": must not be empty");
  return text;
}

}  // namespace gpupool::cli
