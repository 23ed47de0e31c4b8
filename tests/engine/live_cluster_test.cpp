// Engine following a live cluster: nodes, queues and projects change in place, and
// the next cycle — incremental where the engine can follow the change — acts on it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_builder.h"

namespace gpupool::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

Node NodeNamed(const Snapshot& s, const std::string& name) {
  for (const Node& n : s.nodes) {
    if (n.name == name) return n;
  }
  return {};
}

const PendingJob* FindPending(const Snapshot& s, const std::string& name) {
  for (const PendingJob& p : s.pending) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

ClusterBuilder Guaranteed(int nodes, int gpus, MilliGpu quota) {
  ClusterBuilder cluster;
  cluster.Nodes(nodes, gpus).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("a", "train", quota);
  return cluster;
}

TEST(LiveNodes, AddedNodeTakesWaitingWork) {
  ClusterBuilder cluster = Guaranteed(1, 2, 8 * kGpu);
  for (int i = 0; i < 4; ++i) cluster.Submit(Named("a-", i), "train", "a", kGpu);
  Engine engine(cluster.Build(), Incremental());
  EXPECT_THAT(engine.Decide().admissions, SizeIs(2));
  Node added = NodeNamed(engine.ToSnapshot(), "node-0");
  added.name = "node-new";
  engine.UpsertNode(added);
  Decisions d = engine.Decide();
  EXPECT_THAT(Admitted(d), ElementsAre("a-2", "a-3"));
  EXPECT_EQ(d.admissions[0].replicas[0].node, "node-new");
}

TEST(LiveNodes, CordonedNodeKeepsItsWorkAndTakesNothingNew) {
  ClusterBuilder cluster = Guaranteed(1, 4, 8 * kGpu);
  cluster.Submit("a-0", "train", "a", kGpu);
  Engine engine(cluster.Build(), Incremental());
  EXPECT_THAT(engine.Decide().admissions, SizeIs(1));
  Node cordoned = NodeNamed(engine.ToSnapshot(), "node-0");
  cordoned.schedulable = false;
  engine.UpsertNode(cordoned);
  engine.AddPending(Job("a-1", "train", "a", kGpu));
  Decisions d = engine.Decide();
  EXPECT_THAT(d.admissions, IsEmpty());
  EXPECT_EQ(engine.running_count(), 1u);
  cordoned.schedulable = true;
  engine.UpsertNode(cordoned);
  EXPECT_THAT(Admitted(engine.Decide()), ElementsAre("a-1"));
}

TEST(LiveNodes, RemovedNodeRequeuesItsJobsInTheirPlace) {
  ClusterBuilder cluster = Guaranteed(2, 2, 8 * kGpu);
  cluster.Submit("big", "train", "a", 2 * kGpu);
  Engine engine(cluster.Build(), Incremental());
  Decisions first = engine.Decide();
  ASSERT_THAT(first.admissions, SizeIs(1));
  std::string node = first.admissions[0].replicas[0].node;
  engine.AddPending(Job("late", "train", "a", 2 * kGpu, 1, WorkloadClass::kTrain, 0, 50));
  EXPECT_THAT(Admitted(engine.Decide()), ElementsAre("late"));
  ASSERT_TRUE(engine.RemoveNode(node));
  EXPECT_FALSE(engine.RemoveNode(node));
  Snapshot s = engine.ToSnapshot();
  EXPECT_THAT(s.nodes, SizeIs(1));
  ASSERT_NE(FindPending(s, "big"), nullptr);  // Back in the queue, first arrival kept.
  EXPECT_EQ(FindPending(s, "big")->arrival_time, 0);
  engine.UpsertNode(NodeNamed(cluster.Build(), node));
  EXPECT_THAT(Admitted(engine.Decide()), ElementsAre("big"));
}

TEST(LiveNodes, RelabelledNodeLeavesItsPool) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 4, "n", {{"pool", "train"}})
      .AddQueue("train", Sharing::kGuaranteed, {{"pool", "train"}});
  cluster.AddProject("a", "train", 4 * kGpu);
  Engine engine(cluster.Build(), Incremental());
  engine.Decide();
  Node node = NodeNamed(engine.ToSnapshot(), "n-0");
  node.labels["pool"] = "inference";
  engine.UpsertNode(node);
  engine.AddPending(Job("a-0", "train", "a", kGpu));
  EXPECT_EQ(FindWaiting(engine.Decide(), "a-0")->code, WaitCode::kNoMatchingNodes);
  node.labels["pool"] = "train";
  engine.UpsertNode(node);
  EXPECT_THAT(Admitted(engine.Decide()), ElementsAre("a-0"));
}

TEST(LiveNodes, UnmanagedGpusChangeInPlace) {
  ClusterBuilder cluster = Guaranteed(1, 8, 8 * kGpu);
  cluster.snapshot().nodes[0].unmanaged_gpus = 2;
  for (int i = 0; i < 8; ++i) cluster.Submit(Named("a-", i), "train", "a", kGpu);
  Options options = Incremental();
  options.reserve_for_blocked_jobs = false;  // Held room would wait for a full cycle.
  Engine engine(cluster.Build(), options);
  EXPECT_THAT(engine.Decide().admissions, SizeIs(6));
  Node node = NodeNamed(engine.ToSnapshot(), "node-0");
  EXPECT_EQ(node.unmanaged_gpus, 2);
  node.unmanaged_gpus = 0;
  engine.UpsertNode(node);
  EXPECT_THAT(engine.Decide().admissions, SizeIs(2));
}

TEST(LiveQueues, JobsOfADeletedQueueWaitUntilItIsBack) {
  ClusterBuilder cluster = Guaranteed(1, 4, 4 * kGpu);
  Engine engine(cluster.Build(), Incremental());
  engine.Decide();
  ASSERT_TRUE(engine.RemoveQueue("train"));
  EXPECT_THAT(engine.ToSnapshot().queues, IsEmpty());
  engine.AddPending(Job("a-0", "train", "a", kGpu));
  EXPECT_EQ(FindWaiting(engine.Decide(), "a-0")->code, WaitCode::kUnknownQueue);
  engine.UpsertQueue(cluster.Build().queues[0]);
  EXPECT_THAT(Admitted(engine.Decide()), ElementsAre("a-0"));
}

TEST(LiveProjects, RaisedQuotaLetsWaitingJobsStart) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 4).AddQueue("build", Sharing::kFixed);
  cluster.AddProject("a", "build", kGpu);
  for (int i = 0; i < 3; ++i) cluster.Submit(Named("a-", i), "build", "a", kGpu);
  Engine engine(cluster.Build(), Incremental());
  EXPECT_THAT(engine.Decide().admissions, SizeIs(1));
  engine.UpsertProject({"a", 0, {{"build", 3 * kGpu}}});
  EXPECT_THAT(engine.Decide().admissions, SizeIs(2));
}

// Lowering a's quota makes its work above the new quota reclaimable: b, below its
// raised quota, takes it back in the next (incremental) cycle.
TEST(LiveProjects, LoweredQuotaMakesWorkReclaimable) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 4).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("a", "train", 4 * kGpu).AddProject("b", "train", 0);
  for (int i = 0; i < 4; ++i) cluster.Submit(Named("a-", i), "train", "a", kGpu);
  Engine engine(cluster.Build(), Incremental());
  EXPECT_THAT(engine.Decide().admissions, SizeIs(4));
  engine.AddPending(Job("b-0", "train", "b", kGpu));
  EXPECT_THAT(engine.Decide().admissions, IsEmpty());
  engine.UpsertProject({"a", 0, {{"train", 2 * kGpu}}});
  engine.UpsertProject({"b", 0, {{"train", 2 * kGpu}}});
  Decisions d = engine.Decide();
  EXPECT_THAT(Admitted(d), ElementsAre("b-0"));
  ASSERT_THAT(d.preemptions, SizeIs(1));
  EXPECT_EQ(d.preemptions[0].reason, PreemptionReason::kReclaim);
}

TEST(LiveProjects, RemovedProjectKeepsItsJobsWithQuotaZero) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 4).AddQueue("build", Sharing::kFixed);
  cluster.AddProject("a", "build", 2 * kGpu);
  Engine engine(cluster.Build(), Incremental());
  engine.Decide();
  ASSERT_TRUE(engine.RemoveProject("a"));
  engine.AddPending(Job("a-0", "build", "a", kGpu));
  EXPECT_EQ(FindWaiting(engine.Decide(), "a-0")->code, WaitCode::kQuota);
}

}  // namespace
}  // namespace gpupool::engine::testing
