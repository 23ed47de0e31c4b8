#include "gpupool/kube/rate_limit.h"

#include <gtest/gtest.h>

namespace gpupool::kube {
namespace {

// At 1 token a second a test's few milliseconds add next to nothing.
TEST(TokenBucket, AvailableShareIsTheBurstLeftAndGoesBelowZeroForTokensNotYetEarned) {
  TokenBucket bucket(1, 4);
  EXPECT_DOUBLE_EQ(bucket.AvailableShare(), 1);
  bucket.Reserve();
  bucket.Reserve();
  EXPECT_NEAR(bucket.AvailableShare(), 0.5, 0.05);
  bucket.Reserve();
  bucket.Reserve();
  EXPECT_NEAR(bucket.AvailableShare(), 0, 0.05);
  EXPECT_GT(bucket.Reserve(), Clock::duration::zero());
  EXPECT_LT(bucket.AvailableShare(), -0.2);
}

TEST(TokenBucket, AnUnlimitedBucketIsAlwaysFull) {
  TokenBucket bucket(0, 1);
  for (int i = 0; i < 10; ++i) bucket.Reserve();
  EXPECT_DOUBLE_EQ(bucket.AvailableShare(), 1);
}

}  // namespace
}  // namespace gpupool::kube
