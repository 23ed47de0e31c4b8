// Whole GPUs used by pods gpupool does not manage are a count per node
// (Node::unmanaged_gpus): the engine keeps that many devices free for them without
// knowing which ones they are.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_builder.h"

namespace gpupool::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;

ClusterBuilder OneNode(int gpus, int unmanaged_gpus) {
  ClusterBuilder cluster;
  cluster.Nodes(1, gpus).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("a", "train", gpus * kGpu);
  cluster.snapshot().nodes[0].unmanaged_gpus = unmanaged_gpus;
  return cluster;
}

TEST(UnmanagedGpus, WholeJobsLeaveThemFree) {
  ClusterBuilder cluster = OneNode(8, 3);
  for (int i = 0; i < 8; ++i) cluster.Submit(Named("a-", i), "train", "a", kGpu);
  Decisions d = Decide(cluster.Build());
  EXPECT_THAT(d.admissions, SizeIs(5));
  EXPECT_EQ(FindWaiting(d, "a-5")->code, WaitCode::kCapacity);
}

TEST(UnmanagedGpus, FractionsOpenOnlyDevicesTheyDoNotHold) {
  ClusterBuilder cluster = OneNode(2, 1);
  for (int i = 0; i < 3; ++i) cluster.Submit(Named("f-", i), "train", "a", 500);
  Decisions d = Decide(cluster.Build());
  EXPECT_THAT(Admitted(d), ElementsAre("f-0", "f-1"));
  ASSERT_THAT(d.admissions, SizeIs(2));
  EXPECT_EQ(d.admissions[0].replicas[0].devices, d.admissions[1].replicas[0].devices);
  EXPECT_EQ(FindWaiting(d, "f-2")->code, WaitCode::kCapacity);
}

// Both forms of unmanaged use hold together: a device with unmanaged milli-GPUs only
// takes fractions, and the unmanaged whole devices come out of the others.
TEST(UnmanagedGpus, AddUpWithUnmanagedMilliOnDevices) {
  ClusterBuilder cluster = OneNode(4, 2);
  cluster.snapshot().nodes[0].unmanaged_milli = {500, 0, 0, 0};
  cluster.Submit("two", "train", "a", 2 * kGpu);
  cluster.Submit("one", "train", "a", kGpu);
  cluster.Submit("half", "train", "a", 500);
  cluster.Submit("another", "train", "a", kGpu);
  Options no_reservations;  // Otherwise "two" holds the one whole device left.
  no_reservations.reserve_for_blocked_jobs = false;
  Decisions d = Decide(cluster.Build(), no_reservations);
  EXPECT_THAT(Admitted(d), UnorderedElementsAre("one", "half"));
  EXPECT_EQ(FindWaiting(d, "two")->code, WaitCode::kCapacity);
  EXPECT_EQ(FindWaiting(d, "another")->code, WaitCode::kCapacity);
  EXPECT_EQ(FindAdmission(d, "half")->replicas[0].devices, std::vector<int>{0});
}

// The node could hold the gang once the unmanaged pods leave: it waits for room, it
// is not told that no node will ever do.
TEST(UnmanagedGpus, GangWaitsForCapacityNotForMatchingNodes) {
  ClusterBuilder cluster = OneNode(8, 1);
  cluster.Submit("big", "train", "a", 8 * kGpu);
  Decisions d = Decide(cluster.Build());
  EXPECT_EQ(FindWaiting(d, "big")->code, WaitCode::kCapacity);
}

TEST(UnmanagedGpus, PoolCapacityExcludesThem) {
  ClusterBuilder cluster = OneNode(8, 3);
  cluster.snapshot().projects[0].quotas[0].gpu = 0;
  for (int i = 0; i < 10; ++i) cluster.Submit(Named("a-", i), "train", "a", kGpu);
  Decisions d = Decide(cluster.Build());
  EXPECT_EQ(FindShare(d, "a", "train")->deserved, 5 * kGpu);
}

TEST(UnmanagedGpus, SnapshotRoundTrip) {
  ClusterBuilder cluster = OneNode(8, 3);
  cluster.snapshot().nodes[0].unmanaged_milli = {0, 250, 0, 0, 0, 0, 0, 0};
  cluster.Submit("one", "train", "a", kGpu);
  Engine engine(cluster.Build());
  engine.Decide();
  Snapshot out = engine.ToSnapshot();
  ASSERT_THAT(out.nodes, SizeIs(1));
  EXPECT_EQ(out.nodes[0].unmanaged_gpus, 3);
  EXPECT_EQ(out.nodes[0].unmanaged_milli, (std::vector<MilliGpu>{0, 250, 0, 0, 0, 0, 0, 0}));
  EXPECT_THAT(out.running, SizeIs(1));
}

}  // namespace
}  // namespace gpupool::engine::testing
