// Jobs of a live cluster: changed specs, jobs recreated under their name, lost
// replicas, undone admissions, and victims that hold their room until gone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_builder.h"

namespace gpupool::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

const RunningJob* FindRunning(const Snapshot& s, const std::string& name) {
  for (const RunningJob& r : s.running) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

ClusterBuilder OneNode(int gpus) {
  ClusterBuilder cluster;
  cluster.Nodes(1, gpus).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("a", "train", gpus * kGpu);
  return cluster;
}

TEST(LiveJobs, UpsertPendingChangesTheSpec) {
  ClusterBuilder cluster = OneNode(4);
  cluster.Submit("x", "train", "a", 8 * kGpu);
  Engine engine(cluster.Build(), Incremental());
  EXPECT_EQ(FindWaiting(engine.Decide(), "x")->code, WaitCode::kNoMatchingNodes);
  PendingJob smaller = Job("x", "train", "a", 2 * kGpu);
  ASSERT_TRUE(engine.UpsertPending(smaller));
  EXPECT_THAT(Admitted(engine.Decide()), ElementsAre("x"));
  EXPECT_FALSE(engine.UpsertPending(smaller));  // Running: its spec is not changed.
}

TEST(LiveJobs, SameNameWithAnotherUidIsANewJob) {
  ClusterBuilder cluster = OneNode(2);
  cluster.Submit("x", "train", "a", 2 * kGpu).uid = "1";
  Engine engine(cluster.Build(), Incremental());
  EXPECT_THAT(engine.Decide().admissions, SizeIs(1));
  PendingJob again = Job("x", "train", "a", kGpu);
  again.uid = "1";
  engine.AddPending(again);  // Known: ignored.
  EXPECT_EQ(engine.running_count(), 1u);
  again.uid = "2";
  engine.AddPending(again);  // Deleted and created again: the old one is gone.
  EXPECT_EQ(engine.running_count(), 0u);
  EXPECT_EQ(engine.pending_count(), 1u);
  EXPECT_THAT(Admitted(engine.Decide()), ElementsAre("x"));
  EXPECT_EQ(engine.ToSnapshot().running[0].uid, "2");
}

TEST(LiveJobs, LostReplicaRequeuesTheWholeJob) {
  ClusterBuilder cluster = OneNode(4);
  cluster.Submit("gang", "train", "a", kGpu, 2);
  Engine engine(cluster.Build(), Incremental());
  EXPECT_THAT(engine.Decide().admissions, SizeIs(1));
  ASSERT_TRUE(engine.LoseReplica("gang"));
  EXPECT_FALSE(engine.LoseReplica("gang"));
  EXPECT_EQ(engine.running_count(), 0u);
  EXPECT_EQ(Allocated(engine, "a", "train"), 0);
  EXPECT_THAT(Admitted(engine.Decide()), ElementsAre("gang"));
}

TEST(LiveJobs, UndoneAdmissionFreesItsDevices) {
  ClusterBuilder cluster = OneNode(1);
  cluster.Submit("first", "train", "a", kGpu);
  cluster.Submit("second", "train", "a", kGpu);
  Engine engine(cluster.Build(), Incremental());
  EXPECT_THAT(Admitted(engine.Decide()), ElementsAre("first"));
  ASSERT_TRUE(engine.UndoAdmission("first"));
  ASSERT_TRUE(engine.Finish("first"));  // The operator gives up on it.
  EXPECT_THAT(Admitted(engine.Decide()), ElementsAre("second"));
}

// a's 2-GPU job runs over quota; b reclaims 1 GPU. The victim holds both devices
// until it is gone: b's second job waits meanwhile, then starts.
TEST(TerminatingVictims, HoldTheirRoomUntilGone) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 2).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("a", "train", 0).AddProject("b", "train", 2 * kGpu);
  cluster.Submit("a-big", "train", "a", 2 * kGpu);
  Engine engine(cluster.Build(), Incremental());
  EXPECT_THAT(engine.Decide().admissions, SizeIs(1));
  engine.AddPending(Job("b-0", "train", "b", kGpu, 1, WorkloadClass::kTrain, 0, 10));
  Decisions reclaim = engine.Decide();
  EXPECT_THAT(Victims(reclaim), ElementsAre("a-big"));
  EXPECT_THAT(Admitted(reclaim), ElementsAre("b-0"));
  EXPECT_EQ(engine.terminating_count(), 1u);
  const RunningJob* victim = FindRunning(engine.ToSnapshot(), "a-big");
  ASSERT_NE(victim, nullptr);
  EXPECT_TRUE(victim->terminating);

  engine.AddPending(Job("b-1", "train", "b", kGpu, 1, WorkloadClass::kTrain, 0, 20));
  Decisions held = engine.Decide();
  EXPECT_THAT(held.admissions, IsEmpty());
  EXPECT_THAT(held.preemptions, IsEmpty());  // A terminating job is no victim.
  EXPECT_FALSE(engine.VictimGone("b-0"));    // Not terminating.
  ASSERT_TRUE(engine.VictimGone("a-big"));
  EXPECT_EQ(engine.terminating_count(), 0u);
  EXPECT_THAT(Admitted(engine.Decide()), ElementsAre("b-1"));
  EXPECT_EQ(engine.ToSnapshot().pending[0].name, "a-big");
}

// The pure entry point reads terminating victims from the snapshot: their room is
// held there too.
TEST(TerminatingVictims, HeldInASnapshot) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 2).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("b", "train", 2 * kGpu);
  RunningJob stopping;
  stopping.name = "a-big";
  stopping.queue = "train";
  stopping.project = "a";
  stopping.shape.gpu_milli = 2 * kGpu;
  stopping.replicas = {{"node-0", {0, 1}}};
  stopping.terminating = true;
  cluster.snapshot().running.push_back(stopping);
  cluster.Submit("b-0", "train", "b", kGpu);
  Decisions d = Decide(cluster.Build());
  EXPECT_THAT(d.admissions, IsEmpty());
  EXPECT_THAT(d.preemptions, IsEmpty());
}

}  // namespace
}  // namespace gpupool::engine::testing
