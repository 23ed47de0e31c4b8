#include "gpupool/json/quantity.h"

#include <cctype>
#include <limits>

namespace gpupool::json {
namespace {

// Wide enough for any parsed quantity before the overflow check.
__extension__ typedef __int128 Wide;

struct Suffix {
  std::string_view text;
  int power_of_ten;
  int power_of_two;
};

constexpr Suffix kSuffixes[] = {
    {"Ki", 0, 10}, {"Mi", 0, 20}, {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50},
    {"Ei", 0, 60}, {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},  {"k", 3, 0},
    {"M", 6, 0},   {"G", 9, 0},   {"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},
};

bool ParseExponent(std::string_view text, int* exponent) {
  if (text.empty()) return false;
  size_t i = 0;
  bool negative = false;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    i = 1;
  }
  if (i == text.size() || text.size() - i > 3) return false;
  int value = 0;
  for (; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    value = value * 10 + (text[i] - '0');
  }
  *exponent = negative ? -value : value;
  return true;
}

// Splits "1.5Gi" into the number "1.5" and the powers of its suffix.
bool SplitSuffix(std::string_view text, std::string_view* number, int* ten, int* two) {
  size_t end = 0;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) {
    ++end;
  }
  *number = text.substr(0, end);
  std::string_view suffix = text.substr(end);
  *ten = 0;
  *two = 0;
  if (suffix.empty()) return true;
  for (const auto& known : kSuffixes) {
    if (suffix == known.text) {
      *ten = known.power_of_ten;
      *two = known.power_of_two;
      return true;
    }
  }
  if (suffix[0] == 'e' || suffix[0] == 'E') return ParseExponent(suffix.substr(1), ten);
  return false;
}

// Reads "12.50" as digits 1250 with 2 decimals.
bool ParseDecimal(std::string_view number, Wide* digits, int* decimals) {
  *digits = 0;
  *decimals = 0;
  bool seen_point = false;
  int digit_count = 0;
  for (char c : number) {
    if (c == '.') {
      if (seen_point) return false;
      seen_point = true;
      continue;
    }
    if (++digit_count > 30) return false;
    *digits = *digits * 10 + (c - '0');
    if (seen_point) ++*decimals;
  }
  return digit_count > 0;
}

}  // namespace

std::optional<int64_t> ParseMilli(std::string_view text, std::string* error) {
  auto fail = [&](const char* why) -> std::optional<int64_t> {
    if (error) *error = why;
    return std::nullopt;
  };
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  std::string_view number;
  int ten = 0;
  int two = 0;
  Wide digits = 0;
  int decimals = 0;
  if (!SplitSuffix(text, &number, &ten, &two) || !ParseDecimal(number, &digits, &decimals)) {
    return fail("must be a quantity such as 2, \"0.5\" or \"500m\"");
  }
  const Wide limit = std::numeric_limits<int64_t>::max();
  int scale = 3 + ten - decimals;  // milli-units = digits * 10^scale * 2^two
  for (; scale > 0; --scale) {
    digits *= 10;
    if (digits > limit) return fail("is too large");
  }
  for (; scale < 0; ++scale) {
    if (digits % 10 != 0) return fail("must be a whole number of milli-units (at most 3 decimals)");
    digits /= 10;
  }
  for (int i = 0; i < two; ++i) {
    digits *= 2;
    if (digits > limit) return fail("is too large");
  }
  if (digits > limit) return fail("is too large");
  return static_cast<int64_t>(negative ? -digits : digits);
}

std::string FormatMilli(int64_t milli) {
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

std::string FormatDecimal(int64_t milli) {
  std::string sign = milli < 0 ? "-" : "";
  uint64_t magnitude = milli < 0 ? -static_cast<uint64_t>(milli) : milli;
  std::string text = sign + std::to_string(magnitude / 1000);
  uint64_t fraction = magnitude % 1000;
  if (fraction == 0) return text;
  std::string digits = std::to_string(fraction + 1000).substr(1);  // zero-padded to 3
  while (digits.back() == '0') digits.pop_back();
  return text + "." + digits;
}

nlohmann::json Quantity::ToJson() const {
  if (!written.is_null()) return written;
  if (milli % 1000 == 0) return milli / 1000;
  return FormatDecimal(milli);
}

}  // namespace gpupool::json
