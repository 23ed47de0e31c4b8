#include "gpupool/operator/time.h"

#include <cstdio>
#include <ctime>

namespace gpupool::op {

namespace {

// The value of the `count` digits at `at`, or -1 when one is not a digit.
int Digits(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return -1;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
std::int64_t DaysFromCivil(int year, int month, int day) {
  year -= month <= 2;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int year_of_era = static_cast<int>(year - era * 400);
  const int day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

// The offset at `at` ("Z", "+hh:mm" or "-hh:mm", ending the text) in seconds.
std::optional<long> Offset(std::string_view text, std::size_t at) {
  if (at + 1 == text.size() && (text[at] == 'Z' || text[at] == 'z')) return 0;
  if (at + 6 != text.size() || (text[at] != '+' && text[at] != '-') || text[at + 3] != ':')
    return std::nullopt;
  const int hours = Digits(text, at + 1, 2), minutes = Digits(text, at + 4, 2);
  if (hours < 0 || minutes < 0 || hours > 23 || minutes > 59) return std::nullopt;
  return (text[at] == '+' ? 1 : -1) * (hours * 3600L + minutes * 60L);
}

}  // namespace

// Read by hand: the controller parses two times of every running job each
// cycle, and sscanf with timegm cost more than the rest of a job's snapshot.
std::optional<EpochSeconds> ParseTime(std::string_view text) {
  const int year = Digits(text, 0, 4), month = Digits(text, 5, 2), day = Digits(text, 8, 2);
  const int hour = Digits(text, 11, 2), minute = Digits(text, 14, 2), second = Digits(text, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 ||
      minute < 0 || minute > 59 || second < 0 || second > 60)
    return std::nullopt;
  if (text[4] != '-' || text[7] != '-' || (text[10] != 'T' && text[10] != 't') || text[13] != ':' ||
      text[16] != ':')
    return std::nullopt;
  std::size_t rest = 19;
  if (rest < text.size() && text[rest] == '.') {
    ++rest;
    while (rest < text.size() && text[rest] >= '0' && text[rest] <= '9') ++rest;
  }
  const auto offset = Offset(text, rest);
  if (!offset) return std::nullopt;
  return DaysFromCivil(year, month, day) * 86400 + hour * 3600L + minute * 60L + second - *offset;
}

std::string FormatTime(EpochSeconds seconds) {
  const std::time_t time = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&time, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

}  // namespace gpupool::op
