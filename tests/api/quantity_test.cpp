#include "gpupool/json/quantity.h"

#include <gtest/gtest.h>

#include <limits>

#include "gpupool/json/reader.h"

namespace gpupool::json {
namespace {

struct ParseCase {
  const char* text;
  int64_t milli;
};

// Named by its text in test listings (ctest -N), not by its bytes.
void PrintTo(const ParseCase& c, std::ostream* out) {
  *out << '"' << c.text << "\" -> " << c.milli;
}

class QuantityParseTest : public ::testing::TestWithParam<ParseCase> {};

TEST_P(QuantityParseTest, ParsesToMilliUnits) {
  std::string error;
  auto milli = ParseMilli(GetParam().text, &error);
  ASSERT_TRUE(milli.has_value()) << GetParam().text << ": " << error;
  EXPECT_EQ(*milli, GetParam().milli);
}

INSTANTIATE_TEST_SUITE_P(
    Valid, QuantityParseTest,
    ::testing::Values(ParseCase{"2", 2000}, ParseCase{"0.5", 500}, ParseCase{"500m", 500},
                      ParseCase{".25", 250}, ParseCase{"1.", 1000}, ParseCase{"+3", 3000},
                      ParseCase{"-1", -1000}, ParseCase{"1k", 1000000}, ParseCase{"1Ki", 1024000},
                      ParseCase{"16Gi", 17179869184000}, ParseCase{"1e3", 1000000},
                      ParseCase{"1E-3", 1}, ParseCase{"1500000u", 1500}, ParseCase{"0", 0},
                      ParseCase{"0.125", 125}));

class QuantityRejectTest : public ::testing::TestWithParam<const char*> {};

TEST_P(QuantityRejectTest, RejectsWithReason) {
  std::string error;
  EXPECT_FALSE(ParseMilli(GetParam(), &error).has_value()) << GetParam();
  EXPECT_FALSE(error.empty());
}

INSTANTIATE_TEST_SUITE_P(Invalid, QuantityRejectTest,
                         ::testing::Values("", "abc", "1.2.3", "1x", "Gi", "1 Gi", ".", "0.0001",
                                           "1n", "99999999999999999999", "9E", "1e", "--1",
                                           "99999999999999999999m", "10000000000000000000000000n"));

TEST(QuantityJson, HugeIntegersAreRejectedNotWrapped) {
  std::string error;
  EXPECT_FALSE(QuantityFromJson(Json(18446744073709551615ull), &error).has_value());
  EXPECT_EQ(error, "is too large");
  EXPECT_FALSE(QuantityFromJson(Json(std::numeric_limits<int64_t>::min()), &error).has_value());
  EXPECT_EQ(QuantityFromJson(Json(-2), &error)->milli, -2000);
}

TEST(QuantityFormat, CanonicalAndDecimalForms) {
  EXPECT_EQ(FormatMilli(2000), "2");
  EXPECT_EQ(FormatMilli(500), "500m");
  EXPECT_EQ(FormatDecimal(500), "0.5");
  EXPECT_EQ(FormatDecimal(1250), "1.25");
  EXPECT_EQ(FormatDecimal(7000), "7");
  EXPECT_EQ(FormatDecimal(-1500), "-1.5");
  EXPECT_EQ(FormatDecimal(5), "0.005");
}

TEST(QuantityJson, KeepsTheWrittenFormUnlessComputed) {
  Quantity read{500, "500m"};
  EXPECT_EQ(read.ToJson(), "500m");
  EXPECT_EQ(Quantity::FromMilli(1500).ToJson(), "1.5");
  EXPECT_EQ(Quantity::FromMilli(3000).ToJson(), 3);
}

}  // namespace
}  // namespace gpupool::json
