// RFC 3339 times as the API writes them, read into seconds since the epoch.
#include "gpupool/operator/time.h"

#include <gtest/gtest.h>

#include <ctime>

namespace gpupool::op {
namespace {

// What the C library makes of a UTC date and time.
EpochSeconds Reference(int year, int month, int day, int hour, int minute, int second) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<EpochSeconds>(timegm(&tm));
}

TEST(ParseTime, AgreesWithTheCLibraryOnEveryDayOfFourCenturies) {
  char text[32];
  for (int year = 1800; year <= 2200; year += 1) {
    for (int month = 1; month <= 12; ++month) {
      for (int day : {1, 15, 28, 29, 30, 31}) {
        std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day,
                      day % 24, (day * 7) % 60, (day * 13) % 61);
        ASSERT_EQ(ParseTime(text),
                  Reference(year, month, day, day % 24, (day * 7) % 60, (day * 13) % 61))
            << text;
      }
    }
  }
}

TEST(ParseTime, ReadsFractionsAndOffsets) {
  const EpochSeconds base = Reference(2026, 1, 2, 3, 4, 5);
  EXPECT_EQ(ParseTime("2026-01-02T03:04:05Z"), base);
  EXPECT_EQ(ParseTime("2026-01-02t03:04:05z"), base);
  EXPECT_EQ(ParseTime("2026-01-02T03:04:05.123456Z"), base);
  EXPECT_EQ(ParseTime("2026-01-02T04:34:05+01:30"), base);
  EXPECT_EQ(ParseTime("2026-01-02T01:04:05.5-02:00"), base);
  EXPECT_EQ(FormatTime(*ParseTime("2026-01-02T03:04:05Z")), "2026-01-02T03:04:05Z");
  EXPECT_EQ(ParseTime("1969-12-31T23:59:59Z"), -1);
}

TEST(ParseTime, RefusesWhatIsNotAnRfc3339Time) {
  for (const char* bad :
       {"", "2026", "2026-01-02", "2026-01-02T03:04:05", "2026-01-02 03:04:05Z",
        "2026-1-02T03:04:05Z", "2026-13-02T03:04:05Z", "2026-00-02T03:04:05Z",
        "2026-01-32T03:04:05Z", "2026-01-02T24:04:05Z", "2026-01-02T03:60:05Z",
        "2026-01-02T03:04:61Z", "2026-01-02T03:04:05+0100", "2026-01-02T03:04:05+24:00",
        "2026-01-02T03:04:05Zjunk", "2026-01-02T03:04:05.Q", "abcd-ef-ghTij:kl:mnZ",
        "+026-01-02T03:04:05Z", "2026-01-02T03:04:05.123"}) {
    EXPECT_EQ(ParseTime(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace gpupool::op
