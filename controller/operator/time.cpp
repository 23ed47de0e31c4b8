#include "gpupool/operator/time.h"

#include <cstdio>
#include <ctime>

namespace gpupool::op {

std::optional<EpochSeconds> ParseTime(std::string_view text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, consumed = 0;
  const std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &month, &day, &hour, &minute,
                  &second, &consumed) != 6) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return std::nullopt;
  std::size_t rest = static_cast<std::size_t>(consumed);
  if (rest < copy.size() && copy[rest] == '.') {
    ++rest;
    while (rest < copy.size() && copy[rest] >= '0' && copy[rest] <= '9') ++rest;
  }
  long offset = 0;
  if (rest < copy.size() && (copy[rest] == '+' || copy[rest] == '-')) {
    int off_hour = 0, off_minute = 0;
    if (std::sscanf(copy.c_str() + rest + 1, "%2d:%2d", &off_hour, &off_minute) != 2)
      return std::nullopt;
    offset = (copy[rest] == '+' ? 1 : -1) * (off_hour * 3600L + off_minute * 60L);
  } else if (rest >= copy.size() || (copy[rest] != 'Z' && copy[rest] != 'z')) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<EpochSeconds>(timegm(&tm)) - offset;
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
