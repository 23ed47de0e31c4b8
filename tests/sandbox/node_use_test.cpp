#include "sandbox/nodes/node_use.h"

#include <gtest/gtest.h>

namespace gpupool::sandbox {
namespace {

NodeClaim Claim(const std::string& node, int64_t gpu_milli, std::vector<int> devices) {
  return {node,
          {.cpu_milli = 100, .memory_bytes = 1000, .gpu_milli = gpu_milli, .pods = 1},
          std::move(devices)};
}

TEST(NodeUseTest, SumsThePodsOfANodeAndForgetsWhatTheyLetGo) {
  NodeUse use;
  NodeClaim first, second;
  use.Update(first, Claim("n1", 1000, {0}));
  use.Update(second, Claim("n1", 2000, {1, 2}));
  EXPECT_EQ(use.Used("n1").gpu_milli, 3000);
  EXPECT_EQ(use.Used("n1").cpu_milli, 200);
  EXPECT_EQ(use.Used("n1").memory_bytes, 2000);
  EXPECT_EQ(use.Used("n1").pods, 2);
  EXPECT_EQ(use.Devices("n1"), (std::set<int>{0, 1, 2}));
  use.Update(first, {});
  EXPECT_EQ(use.Used("n1").gpu_milli, 2000);
  EXPECT_EQ(use.Used("n1").pods, 1);
  EXPECT_EQ(use.Devices("n1"), (std::set<int>{1, 2}));
  EXPECT_TRUE(first.node.empty());
}

TEST(NodeUseTest, AClaimThatMovesLeavesItsOldNode) {
  NodeUse use;
  NodeClaim pod;
  use.Update(pod, Claim("n1", 1000, {}));
  use.Update(pod, Claim("n2", 1000, {3}));
  EXPECT_EQ(use.Used("n1").pods, 0);
  EXPECT_EQ(use.Used("n2").pods, 1);
  EXPECT_EQ(use.Devices("n2"), std::set<int>{3});
  // Recounting a claim unchanged counts it once.
  use.Update(pod, Claim("n2", 1000, {3}));
  EXPECT_EQ(use.Used("n2").gpu_milli, 1000);
}

TEST(NodeUseTest, ADeviceTwoPodsClaimStaysTakenUntilBothLetItGo) {
  NodeUse use;
  NodeClaim first, second;
  use.Update(first, Claim("n1", 1000, {0}));
  use.Update(second, Claim("n1", 1000, {0}));
  use.Update(first, {});
  EXPECT_EQ(use.Devices("n1"), std::set<int>{0});
  use.Update(second, {});
  EXPECT_TRUE(use.Devices("n1").empty());
  EXPECT_EQ(use.Used("n1").gpu_milli, 0);
}

TEST(NodeUseTest, AnUnboundClaimHoldsNothing) {
  NodeUse use;
  NodeClaim pod;
  use.Update(pod, Claim("", 1000, {0}));
  EXPECT_EQ(use.Used("").pods, 0);
  EXPECT_TRUE(use.Devices("").empty());
  use.Update(pod, {});  // letting go of nothing is harmless
  EXPECT_EQ(use.Used("").pods, 0);
}

}  // namespace
}  // namespace gpupool::sandbox
