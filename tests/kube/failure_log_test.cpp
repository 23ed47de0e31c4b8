// When a reflector warns that its requests keep failing: not for a short
// outage, after 5 s of one, then every 30 s while it lasts.
#include "kube/failure_log.h"

#include <gtest/gtest.h>

namespace gpupool::kube::internal {
namespace {

using std::chrono::seconds;

// Counted from the start of the first failed request: the client has retried
// it for seconds before the reflector sees it fail.
TEST(FailureLog, WarnsAfterFiveSecondsThenEveryThirty) {
  FailureLog log;
  const auto start = FailureLog::Clock::now();
  EXPECT_EQ(log.Failed(start, start + seconds(1)), 0);
  EXPECT_EQ(log.Failed(start + seconds(2), start + seconds(4)), 0);
  EXPECT_EQ(log.Failed(start + seconds(4), start + seconds(5)), 5);
  EXPECT_EQ(log.Failed(start + seconds(6), start + seconds(20)), 0);
  EXPECT_EQ(log.Failed(start + seconds(21), start + seconds(35)), 35);
}

TEST(FailureLog, ASuccessStartsTheCountAgain) {
  FailureLog log;
  const auto start = FailureLog::Clock::now();
  log.Failed(start, start);
  EXPECT_EQ(log.Failed(start + seconds(1), start + seconds(6)), 6);
  log.Healed();
  EXPECT_EQ(log.Failed(start + seconds(7), start + seconds(7)), 0);
  EXPECT_EQ(log.Failed(start + seconds(8), start + seconds(11)), 0);
  EXPECT_EQ(log.Failed(start + seconds(11), start + seconds(12)), 5);
}

}  // namespace
}  // namespace gpupool::kube::internal
