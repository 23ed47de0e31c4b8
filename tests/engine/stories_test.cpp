// The stories of PRODUCT.md, played against the engine cycle by cycle.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_builder.h"

namespace gpupool::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// Story 1. Susan, Joe and Jemma share 8 GPUs, guaranteed 2 each. Susan's queue of
// one-GPU jobs takes every idle GPU; when Joe submits, two of Susan's over-quota jobs
// are stopped and requeued, Joe's run; when Joe's finish, Susan's resume by themselves.
TEST(Stories, SusanJoeJemmaShareEightGpus) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 8).AddQueue("train", Sharing::kGuaranteed);
  for (const char* name : {"susan", "joe", "jemma"}) cluster.AddProject(name, "train", 2 * kGpu);
  for (int i = 0; i < 8; ++i) cluster.Submit("susan-" + std::to_string(i), "train", "susan", kGpu);
  Engine engine(cluster.Build());
  Decisions first = engine.Decide();
  EXPECT_THAT(first.admissions, SizeIs(8));  // 2 in quota, 6 over: every GPU is used.
  EXPECT_EQ(Allocated(engine, "susan", "train"), 8 * kGpu);

  engine.SetNow(100);
  engine.AddPending(Job("joe-0", "train", "joe", kGpu, 1, WorkloadClass::kTrain, 0, 100));
  engine.AddPending(Job("joe-1", "train", "joe", kGpu, 1, WorkloadClass::kTrain, 0, 100));
  Decisions second = engine.Decide();
  EXPECT_THAT(Admitted(second), ElementsAre("joe-0", "joe-1"));
  ASSERT_THAT(second.preemptions, SizeIs(2));
  for (const Preemption& p : second.preemptions) {
    EXPECT_EQ(p.reason, PreemptionReason::kReclaim);
    EXPECT_THAT(p.message, HasSubstr("project joe"));
  }
  // Until their pods have stopped, Susan's two jobs hold their GPUs and count as hers.
  EXPECT_EQ(engine.terminating_count(), 2u);
  EXPECT_EQ(Allocated(engine, "susan", "train"), 8 * kGpu);
  for (const Preemption& p : second.preemptions) ASSERT_TRUE(engine.VictimGone(p.victim));
  EXPECT_EQ(Allocated(engine, "susan", "train"), 6 * kGpu);
  EXPECT_EQ(engine.pending_count(), 2u);  // Susan's two stopped jobs wait in the queue.

  engine.SetNow(200);
  ASSERT_TRUE(engine.Finish("joe-0"));
  ASSERT_TRUE(engine.Finish("joe-1"));
  Decisions third = engine.Decide();
  EXPECT_THAT(Admitted(third),
              ElementsAre(second.preemptions[0].victim < second.preemptions[1].victim
                              ? second.preemptions[0].victim
                              : second.preemptions[1].victim,
                          second.preemptions[0].victim < second.preemptions[1].victim
                              ? second.preemptions[1].victim
                              : second.preemptions[0].victim));
  EXPECT_THAT(third.preemptions, IsEmpty());
  EXPECT_EQ(Allocated(engine, "susan", "train"), 8 * kGpu);
}

// Story 2. Bob and Patty, guaranteed 2 GPUs each on 6 GPUs. As long as jobs wait,
// every GPU is used.
TEST(Stories, BobAndPattyKeepEveryGpuBusy) {
  ClusterBuilder cluster;
  cluster.Nodes(3, 2).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("bob", "train", 2 * kGpu).AddProject("patty", "train", 2 * kGpu);
  for (int i = 0; i < 10; ++i) cluster.Submit("bob-" + std::to_string(i), "train", "bob", kGpu);
  Engine engine(cluster.Build());
  EXPECT_THAT(engine.Decide().admissions, SizeIs(6));
  EXPECT_EQ(engine.pending_count(), 4u);

  engine.SetNow(60);
  engine.AddPending(Job("patty-0", "train", "patty", kGpu, 1, WorkloadClass::kTrain, 0, 60));
  engine.AddPending(Job("patty-1", "train", "patty", kGpu, 1, WorkloadClass::kTrain, 0, 60));
  Decisions reclaim = engine.Decide();
  EXPECT_THAT(Admitted(reclaim), ElementsAre("patty-0", "patty-1"));
  EXPECT_THAT(reclaim.preemptions, SizeIs(2));
  for (const Preemption& p : reclaim.preemptions) ASSERT_TRUE(engine.VictimGone(p.victim));
  EXPECT_EQ(Allocated(engine, "bob", "train") + Allocated(engine, "patty", "train"), 6 * kGpu);

  engine.SetNow(120);
  engine.Finish("patty-0");
  engine.Finish("patty-1");
  Decisions resume = engine.Decide();
  EXPECT_THAT(resume.admissions, SizeIs(2));  // Bob's jobs take the GPUs back.
  EXPECT_EQ(Allocated(engine, "bob", "train"), 6 * kGpu);
}

// Story 3. A fixed build quota of 1 GPU: the notebook starts at once even when the
// training pool is full, and a second one waits, told why.
TEST(Stories, BuildAlwaysWorksAndNeverExceedsItsQuota) {
  ClusterBuilder cluster;
  cluster.Nodes(2, 4, "train", {{"pool", "train"}}).Nodes(1, 2, "build", {{"pool", "build"}});
  cluster.AddQueue("train", Sharing::kGuaranteed, {{"pool", "train"}});
  cluster.AddQueue("build", Sharing::kFixed, {{"pool", "build"}});
  cluster.AddProject("alice", "train", 4 * kGpu).AddProject("alice", "build", kGpu);
  cluster.AddProject("carol", "train", 4 * kGpu);
  for (int i = 0; i < 12; ++i) cluster.Submit("carol-" + std::to_string(i), "train", "carol", kGpu);
  cluster.Submit("notebook", "build", "alice", kGpu, 1, WorkloadClass::kBuild);
  cluster.Submit("notebook-2", "build", "alice", kGpu, 1, WorkloadClass::kBuild);
  Decisions d = Decide(cluster.Build());
  ASSERT_NE(FindAdmission(d, "notebook"), nullptr);
  EXPECT_EQ(FindAdmission(d, "notebook")->replicas[0].node, "build-0");
  const Waiting* second = FindWaiting(d, "notebook-2");
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->code, WaitCode::kQuota);
  EXPECT_EQ(second->message,
            "project alice is at its fixed quota of 1 GPU in queue build (uses 1 GPU, this job "
            "needs 1 GPU)");
  EXPECT_THAT(d.admissions, SizeIs(9));  // 8 training GPUs used by carol, plus the notebook.
}

// Story 4. A 4x8-GPU job gets all 32 GPUs in one rack, or waits holding nothing.
TEST(Stories, DistributedTrainingStartsWholeOrNotAtAll) {
  ClusterBuilder cluster;
  cluster.Nodes(4, 8, "a", {{"rack", "a"}}).Nodes(4, 8, "b", {{"rack", "b"}});
  cluster.AddQueue("train", Sharing::kGuaranteed).AddProject("ml", "train", 32 * kGpu);
  cluster.AddProject("other", "train", 32 * kGpu);
  Snapshot snapshot = cluster.Build();
  RunningJob busy;
  busy.name = "busy";
  busy.queue = "train";
  busy.project = "other";
  busy.shape.gpu_milli = kGpu;
  busy.replicas = {{"a-0", {0}}};
  snapshot.running.push_back(busy);
  PendingJob big = Job("big", "train", "ml", 8 * kGpu, 4);
  big.topology = {TopologyMode::kRequired, "rack"};
  snapshot.pending.push_back(big);
  Decisions d = Decide(snapshot);
  const Admission* admission = FindAdmission(d, "big");
  ASSERT_NE(admission, nullptr);
  ASSERT_THAT(admission->replicas, SizeIs(4));
  for (const ReplicaPlacement& r : admission->replicas) {
    EXPECT_EQ(r.node.substr(0, 2), "b-");
    EXPECT_THAT(r.devices, SizeIs(8));
  }

  // With a busy node in each rack, no rack has room: nothing is placed, and the
  // reason says so; in-quota work of others is not touched.
  busy.name = "busy-b";
  busy.replicas = {{"b-0", {0}}};
  snapshot.running.push_back(busy);
  Decisions blocked = Decide(snapshot);
  EXPECT_THAT(blocked.admissions, IsEmpty());
  EXPECT_THAT(blocked.preemptions, IsEmpty());
  const Waiting* waiting = FindWaiting(blocked, "big");
  ASSERT_NE(waiting, nullptr);
  EXPECT_EQ(waiting->code, WaitCode::kTopology);
  EXPECT_EQ(waiting->message,
            "no single rack domain has room for 4 replicas of 8 GPUs (the pool as a whole has)");
}

// Story 5. Two 0.5-GPU notebooks share one physical GPU; each is charged 0.5.
TEST(Stories, HalfAGpuIsEnoughForANotebook) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 2).AddQueue("build", Sharing::kFixed).AddProject("ds", "build", kGpu);
  cluster.Submit("nb-1", "build", "ds", 500, 1, WorkloadClass::kBuild);
  cluster.Submit("nb-2", "build", "ds", 500, 1, WorkloadClass::kBuild);
  cluster.Submit("nb-3", "build", "ds", 500, 1, WorkloadClass::kBuild);
  Decisions d = Decide(cluster.Build());
  const Admission* a = FindAdmission(d, "nb-1");
  const Admission* b = FindAdmission(d, "nb-2");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->replicas[0].node, b->replicas[0].node);
  EXPECT_EQ(a->replicas[0].devices, b->replicas[0].devices);
  EXPECT_THAT(a->replicas[0].devices, SizeIs(1));
  EXPECT_EQ(FindShare(d, "ds", "build")->allocated, kGpu);  // 0.5 + 0.5.
  ASSERT_NE(FindWaiting(d, "nb-3"), nullptr);
  EXPECT_THAT(FindWaiting(d, "nb-3")->message, HasSubstr("fixed quota of 1 GPU"));
}

// Story 6. A project's high-priority job preempts its own low-priority job, never
// another project's in-quota job.
TEST(Stories, PrioritiesInsideAProject) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 4).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("vision", "train", 2 * kGpu).AddProject("speech", "train", 2 * kGpu);
  Snapshot snapshot = cluster.Build();
  for (const char* project : {"vision", "speech"}) {
    for (int i = 0; i < 2; ++i) {
      RunningJob job;
      job.name = std::string(project) + "-low-" + std::to_string(i);
      job.queue = "train";
      job.project = project;
      job.shape.gpu_milli = kGpu;
      job.replicas = {{"node-0", {std::string(project) == "vision" ? i : 2 + i}}};
      snapshot.running.push_back(job);
    }
  }
  snapshot.pending.push_back(
      Job("vision-urgent", "train", "vision", kGpu, 1, WorkloadClass::kTrain, 10));
  Decisions d = Decide(snapshot);
  ASSERT_NE(FindAdmission(d, "vision-urgent"), nullptr);
  ASSERT_THAT(d.preemptions, SizeIs(1));
  EXPECT_THAT(d.preemptions[0].victim, HasSubstr("vision-low"));
  EXPECT_EQ(d.preemptions[0].reason, PreemptionReason::kProjectPriority);
  EXPECT_EQ(d.preemptions[0].beneficiary, "vision-urgent");
}

}  // namespace
}  // namespace gpupool::engine::testing
