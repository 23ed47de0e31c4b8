// GPU amounts in waiting reasons and messages: written without printf, with the text
// printf's "%g" gives.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "engine/reasons.h"

namespace gpupool::engine::internal {
namespace {

// The amount as printf writes it: whole numbers with "%lld", others with "%g".
std::string Printf(MilliGpu milli) {
  char buffer[48];
  if (milli % kMilliPerGpu == 0) {
    long long whole = milli / kMilliPerGpu;
    std::snprintf(buffer, sizeof buffer, "%lld GPU%s", whole, whole == 1 ? "" : "s");
  } else {
    std::snprintf(buffer, sizeof buffer, "%g GPU%s", static_cast<double>(milli) / kMilliPerGpu,
                  milli < kMilliPerGpu ? "" : "s");
  }
  return buffer;
}

TEST(FormatGpus, Examples) {
  EXPECT_EQ(FormatGpus(0), "0 GPUs");
  EXPECT_EQ(FormatGpus(1000), "1 GPU");
  EXPECT_EQ(FormatGpus(32000), "32 GPUs");
  EXPECT_EQ(FormatGpus(250), "0.25 GPU");
  EXPECT_EQ(FormatGpus(5), "0.005 GPU");
  EXPECT_EQ(FormatGpus(1500), "1.5 GPUs");
  EXPECT_EQ(FormatGpus(-500), "-0.5 GPU");
  EXPECT_EQ(FormatGpus(-1000), "-1 GPUs");
  EXPECT_EQ(FormatGpus(1234567), "1234.57 GPUs");  // Six significant digits, as "%g".
}

TEST(FormatGpus, SameTextAsPrintf) {
  for (MilliGpu milli = -30000; milli <= 30000; ++milli) {
    ASSERT_EQ(FormatGpus(milli), Printf(milli)) << milli;
  }
  for (MilliGpu milli = -2000000; milli <= 2000000; milli += 997) {
    ASSERT_EQ(FormatGpus(milli), Printf(milli)) << milli;
  }
  for (MilliGpu milli : {999999LL, 1000001LL, -999999LL, -1000001LL, 123456789012LL,
                         9223372036854775LL, -9223372036854775LL}) {
    ASSERT_EQ(FormatGpus(milli), Printf(milli)) << milli;
  }
}

}  // namespace
}  // namespace gpupool::engine::internal
