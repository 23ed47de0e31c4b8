// The placer that builds the running set of the engine benchmarks' realistic clusters
// (tests/support/device_placer.h): devices, cpu and memory are never given twice, gangs
// get all their replicas or none, and a gang asking for one rack gets one.
#include "device_placer.h"

#include <gtest/gtest.h>

#include <set>

namespace gpupool::engine::bench {
namespace {

Node MakeNode(const std::string& name, const std::string& rack, int gpus = 8,
              MilliCpu cpu = 128000) {
  Node node{name, {{"pool", "p"}, {"rack", rack}}, "M", gpus};
  node.cpu_milli = cpu;
  node.memory_bytes = Bytes{1} << 40;
  return node;
}

RunningJob Job(MilliGpu gpu_milli, MilliCpu cpu_milli = 1000) {
  RunningJob job;
  job.shape = {gpu_milli, cpu_milli, 0};
  return job;
}

std::set<std::string> NodesOf(const RunningJob& job) {
  std::set<std::string> out;
  for (const ReplicaPlacement& replica : job.replicas) out.insert(replica.node);
  return out;
}

const TopologyRequest kRequiredRack{TopologyMode::kRequired, "rack"};
const TopologyRequest kPreferredRack{TopologyMode::kPreferred, "rack"};

TEST(DevicePlacer, AGangRequiringOneRackGetsOneOrNothing) {
  std::vector<Node> nodes = {MakeNode("n0", "a"), MakeNode("n1", "a"), MakeNode("n2", "b"),
                             MakeNode("n3", "b")};
  DevicePlacer placer(nodes, "pool");
  std::vector<int> groups = placer.Groups("p");
  RunningJob small = Job(1000);
  ASSERT_TRUE(placer.Place(small, 1, groups));
  EXPECT_EQ(NodesOf(small), (std::set<std::string>{"n0"}));
  // Best fit anywhere would take n1 and n2; rack a has one free node only.
  RunningJob gang = Job(8000);
  ASSERT_TRUE(placer.Place(gang, 2, groups, kRequiredRack));
  EXPECT_EQ(NodesOf(gang), (std::set<std::string>{"n2", "n3"}));
  RunningJob halves = Job(4000);
  ASSERT_TRUE(placer.Place(halves, 2, groups, kRequiredRack));
  EXPECT_EQ(NodesOf(halves), (std::set<std::string>{"n0", "n1"}));
  // 3 and 4 devices are left in rack a, none in rack b: nothing is taken.
  MilliGpu before = placer.Allocated("p");
  RunningJob too_large = Job(8000);
  EXPECT_FALSE(placer.Place(too_large, 2, groups, kRequiredRack));
  EXPECT_TRUE(too_large.replicas.empty());
  EXPECT_EQ(placer.Allocated("p"), before);
  EXPECT_EQ(before, 1000 + 16000 + 8000);
}

TEST(DevicePlacer, APreferredRackFallsBackToAnyNodesARequiredOneDoesNot) {
  std::vector<Node> nodes = {MakeNode("n0", "a"), MakeNode("n1", "b")};
  DevicePlacer placer(nodes, "pool");
  RunningJob required = Job(8000);
  EXPECT_FALSE(placer.Place(required, 2, placer.Groups("p"), kRequiredRack));
  EXPECT_EQ(placer.Allocated("p"), 0);
  RunningJob preferred = Job(8000);
  ASSERT_TRUE(placer.Place(preferred, 2, placer.Groups("p"), kPreferredRack));
  EXPECT_EQ(NodesOf(preferred), (std::set<std::string>{"n0", "n1"}));
}

TEST(DevicePlacer, WholeDevicesAreNeverSharedAndFractionsStopAtOneGpu) {
  std::vector<Node> nodes = {MakeNode("n0", "a", 4)};
  DevicePlacer placer(nodes, "pool");
  std::vector<int> groups = placer.Groups("p");
  RunningJob half = Job(500);
  ASSERT_TRUE(placer.Place(half, 1, groups));
  EXPECT_EQ(half.replicas[0].devices, std::vector<int>{0});
  RunningJob four = Job(4000);
  EXPECT_FALSE(placer.Place(four, 1, groups));  // Device 0 is shared.
  RunningJob three = Job(3000);
  ASSERT_TRUE(placer.Place(three, 1, groups));
  EXPECT_EQ(three.replicas[0].devices, (std::vector<int>{1, 2, 3}));
  RunningJob other_half = Job(500);
  ASSERT_TRUE(placer.Place(other_half, 1, groups));
  EXPECT_EQ(other_half.replicas[0].devices, std::vector<int>{0});
  RunningJob quarter = Job(250);
  EXPECT_FALSE(placer.Place(quarter, 1, groups));
  EXPECT_EQ(placer.Allocated("p"), placer.Capacity("p"));
}

TEST(DevicePlacer, CpuBoundsANodeWithFreeDevices) {
  std::vector<Node> nodes = {MakeNode("n0", "a", 8, 10000)};
  DevicePlacer placer(nodes, "pool");
  RunningJob first = Job(1000, 8000);
  ASSERT_TRUE(placer.Place(first, 1, placer.Groups("p")));
  RunningJob second = Job(1000, 8000);
  EXPECT_FALSE(placer.Place(second, 1, placer.Groups("p")));
  EXPECT_EQ(placer.Allocated("p"), 1000);
}

TEST(DevicePlacer, AGangGetsAllItsReplicasOrNone) {
  std::vector<Node> nodes = {MakeNode("n0", "a"), MakeNode("n1", "a")};
  DevicePlacer placer(nodes, "pool");
  RunningJob gang = Job(8000);
  EXPECT_FALSE(placer.Place(gang, 3, placer.Groups("p")));
  EXPECT_EQ(placer.Allocated("p"), 0);
  ASSERT_TRUE(placer.Place(gang, 2, placer.Groups("p")));
  EXPECT_EQ(placer.Allocated("p"), 16000);
}

}  // namespace
}  // namespace gpupool::engine::bench
