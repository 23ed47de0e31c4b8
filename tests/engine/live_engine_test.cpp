// LiveEngine: snapshot after snapshot, the engine follows what changed, and is
// rebuilt only where the snapshot says something it cannot follow in place.
#include "gpupool/engine/live_engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_builder.h"

namespace gpupool::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

ClusterBuilder TwoProjects() {
  ClusterBuilder cluster;
  cluster.Nodes(2, 4).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("a", "train", 4 * kGpu).AddProject("b", "train", 4 * kGpu);
  return cluster;
}

// live.State() is what an operator reads back once it has carried out every
// decision; each test changes it as the cluster would.
TEST(LiveEngine, FollowsArrivalsAndCompletionsWithoutRebuilding) {
  ClusterBuilder cluster = TwoProjects();
  cluster.Submit("a1", "train", "a", 4 * kGpu);
  LiveEngine live(Incremental());
  EXPECT_THAT(Admitted(live.Decide(cluster.Build())), ElementsAre("a1"));
  Snapshot next = live.State();
  next.now += 10;
  next.pending.push_back(Job("b1", "train", "b", 4 * kGpu, 1, WorkloadClass::kTrain, 0, 5));
  EXPECT_THAT(Admitted(live.Decide(next)), ElementsAre("b1"));
  next = live.State();
  next.running.erase(next.running.begin());  // a1 finished.
  next.pending.push_back(Job("a2", "train", "a", 4 * kGpu, 1, WorkloadClass::kTrain, 0, 20));
  EXPECT_THAT(Admitted(live.Decide(next)), ElementsAre("a2"));
  EXPECT_EQ(live.stats().rebuilds, 1u);
  EXPECT_EQ(live.stats().synced, 2u);
}

TEST(LiveEngine, AnAdmissionNotCarriedOutIsUndone) {
  ClusterBuilder cluster = TwoProjects();
  cluster.Submit("a1", "train", "a", 4 * kGpu);
  const Snapshot first = cluster.Build();
  LiveEngine live(Incremental());
  EXPECT_THAT(Admitted(live.Decide(first)), ElementsAre("a1"));
  // The status write failed: the API still says a1 waits. It is admitted again.
  EXPECT_THAT(Admitted(live.Decide(first)), ElementsAre("a1"));
  EXPECT_EQ(live.stats().rebuilds, 1u);
  EXPECT_EQ(live.State().running.size(), 1u);
}

TEST(LiveEngine, QuotaAndNodeChangesAreFollowed) {
  ClusterBuilder cluster;
  cluster.Nodes(2, 4).AddQueue("build", Sharing::kFixed);
  cluster.AddProject("a", "build", 4 * kGpu);
  cluster.Submit("gang", "build", "a", 4 * kGpu, 2);
  LiveEngine live(Incremental());
  EXPECT_EQ(FindWaiting(live.Decide(cluster.Build()), "gang")->code, WaitCode::kQuota);
  Snapshot next = live.State();
  next.projects[0].quotas[0].gpu = 8 * kGpu;
  EXPECT_THAT(Admitted(live.Decide(next)), ElementsAre("gang"));
  next = live.State();
  next.nodes.erase(next.nodes.begin() + 1);  // A node is deleted: the gang waits again.
  next.running.clear();
  next.pending.push_back(Job("gang", "build", "a", 4 * kGpu, 2));
  EXPECT_THAT(live.Decide(next).admissions, IsEmpty());
  EXPECT_EQ(live.State().nodes.size(), 1u);
  EXPECT_EQ(live.stats().rebuilds, 1u);
}

TEST(LiveEngine, ARunningJobItDoesNotHoldSoMeansARebuild) {
  ClusterBuilder cluster = TwoProjects();
  cluster.Submit("a1", "train", "a", 2 * kGpu);
  LiveEngine live(Incremental());
  live.Decide(cluster.Build());
  Snapshot moved = live.State();
  ASSERT_EQ(moved.running.size(), 1u);
  moved.running[0].replicas[0].devices = {2, 3};  // Someone else placed it elsewhere.
  live.Decide(moved);
  EXPECT_EQ(live.stats().rebuilds, 2u);
  EXPECT_THAT(live.State().running[0].replicas[0].devices, ElementsAre(2, 3));
}

TEST(LiveEngine, AJobCreatedAgainUnderItsNameIsANewJob) {
  ClusterBuilder cluster = TwoProjects();
  cluster.Submit("x", "train", "a", 4 * kGpu).uid = "1";
  LiveEngine live(Incremental());
  live.Decide(cluster.Build());
  Snapshot next = live.State();
  next.running.clear();
  PendingJob again = Job("x", "train", "a", 2 * kGpu);
  again.uid = "2";
  next.pending.push_back(again);
  EXPECT_THAT(Admitted(live.Decide(next)), ElementsAre("x"));
  EXPECT_EQ(live.State().running[0].uid, "2");
  EXPECT_EQ(live.State().running[0].replicas[0].devices.size(), 2u);
  EXPECT_EQ(live.stats().rebuilds, 1u);
}

TEST(LiveEngine, AVictimGoneWaitsAgainInItsPlace) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 4).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("a", "train", 0).AddProject("b", "train", 4 * kGpu);
  cluster.Submit("lent", "train", "a", 4 * kGpu);
  LiveEngine live(Incremental());
  EXPECT_THAT(Admitted(live.Decide(cluster.Build())), ElementsAre("lent"));
  Snapshot next = live.State();
  next.now += 60;
  next.pending.push_back(Job("owner", "train", "b", 4 * kGpu, 1, WorkloadClass::kTrain, 0, 30));
  EXPECT_THAT(Victims(live.Decide(next)), ElementsAre("lent"));
  // The victim's status says Preempted (pending), its pods are gone.
  next = live.State();
  ASSERT_EQ(next.running.size(), 2u);
  std::erase_if(next.running, [](const RunningJob& r) { return r.terminating; });
  next.pending.push_back(Job("lent", "train", "a", 4 * kGpu));
  const Decisions after = live.Decide(next);
  EXPECT_THAT(after.admissions, IsEmpty());
  EXPECT_EQ(live.State().pending.size(), 1u);
  EXPECT_EQ(live.State().pending[0].name, "lent");
  EXPECT_EQ(live.stats().rebuilds, 1u);
}

// A controller started before anything was created: queues, projects (the engine
// had none, so their quota tables are laid out anew), nodes and jobs all arrive live.
TEST(LiveEngine, StartsFromAnEmptyCluster) {
  LiveEngine live(Incremental());
  live.Decide(Snapshot{});
  ClusterBuilder cluster = TwoProjects();
  cluster.Submit("a1", "train", "a", 4 * kGpu);
  EXPECT_THAT(Admitted(live.Decide(cluster.Build())), ElementsAre("a1"));
  EXPECT_EQ(live.stats().rebuilds, 1u);
}

}  // namespace
}  // namespace gpupool::engine::testing
