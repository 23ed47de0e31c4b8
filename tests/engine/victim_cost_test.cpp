// The victim order (docs/scheduling.md, "Reclaim"): victim sets that make room are
// compared first by their departments, then by the work they destroy, with a
// deterministic tiebreak; reclaim may wait for over-quota work about to end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_builder.h"

namespace gpupool::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

RunningJob Running(const std::string& name, const std::string& project, MilliGpu gpus,
                   const std::string& node, std::vector<int> devices, Seconds start,
                   int priority = 0) {
  RunningJob job;
  job.name = name;
  job.uid = name + "-uid";
  job.queue = "train";
  job.project = project;
  job.shape.gpu_milli = gpus;
  job.priority = priority;
  job.start_time = start;
  job.replicas = {{node, std::move(devices)}};
  return job;
}

// Two 4-GPU nodes full of bob's over-quota work; joe (quota 2) needs 2 GPUs.
Snapshot TwoFullNodes(std::vector<RunningJob> running, Seconds now) {
  ClusterBuilder cluster;
  cluster.Nodes(2, 4, "n").AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("bob", "train", 0).AddProject("joe", "train", 2 * kGpu);
  Snapshot s = cluster.Build();
  s.now = now;
  s.running = std::move(running);
  s.pending.push_back(Job("joe-1", "train", "joe", 2 * kGpu));
  return s;
}

// On n-0 one job has run for days on 4 GPUs; on n-1 two 1-GPU jobs started a
// minute ago. One victim would do on n-0, but the two young ones lose far less.
std::vector<RunningJob> OldBigAndYoungSmall() {
  return {Running("b-old", "bob", 4 * kGpu, "n-0", {0, 1, 2, 3}, 0),
          Running("b-young-1", "bob", kGpu, "n-1", {0}, 259140),
          Running("b-young-2", "bob", kGpu, "n-1", {1}, 259140),
          Running("b-mid", "bob", 2 * kGpu, "n-1", {2, 3}, 86400)};
}

TEST(VictimCost, StopsTheSetThatDestroysTheLeastWork) {
  Decisions d = Decide(TwoFullNodes(OldBigAndYoungSmall(), 259200));
  EXPECT_THAT(Victims(d), UnorderedElementsAre("b-young-1", "b-young-2"));
  ASSERT_NE(FindAdmission(d, "joe-1"), nullptr);
  EXPECT_EQ(FindAdmission(d, "joe-1")->replicas[0].node, "n-1");
}

// The earlier rule stays selectable for comparison: one victim is enough on n-0.
TEST(VictimCost, FewestVictimsPolicyKeepsTheEarlierRule) {
  Options options;
  options.victim_policy = VictimPolicy::kFewestVictims;
  Decisions d = Decide(TwoFullNodes(OldBigAndYoungSmall(), 259200), options);
  EXPECT_THAT(Victims(d), ElementsAre("b-old"));
}

// A job that saves its state when stopped loses nothing: it goes before one that
// started a minute ago and saves nothing, though it has run for days.
TEST(VictimCost, AJobThatSavesWhenStoppedLosesNothing) {
  std::vector<RunningJob> running = {Running("b-saves", "bob", 2 * kGpu, "n-0", {0, 1}, 0),
                                     Running("b-young", "bob", 2 * kGpu, "n-0", {2, 3}, 259140),
                                     Running("b-other-1", "bob", 2 * kGpu, "n-1", {0, 1}, 0),
                                     Running("b-other-2", "bob", 2 * kGpu, "n-1", {2, 3}, 0)};
  running[0].saves_on_preemption = true;
  Decisions d = Decide(TwoFullNodes(running, 259200));
  EXPECT_THAT(Victims(d), ElementsAre("b-saves"));
}

// Work lost counts from the last checkpoint: the job that ran longer but saved its
// work 100 s ago loses less than the younger one that never checkpoints.
TEST(VictimCost, CountsFromTheLastCheckpoint) {
  std::vector<RunningJob> running = {Running("b-saves", "bob", 2 * kGpu, "n-0", {0, 1}, 0),
                                     Running("b-never", "bob", 2 * kGpu, "n-0", {2, 3}, 500),
                                     Running("b-other-1", "bob", 2 * kGpu, "n-1", {0, 1}, 0),
                                     Running("b-other-2", "bob", 2 * kGpu, "n-1", {2, 3}, 0)};
  running[0].checkpoint_interval_seconds = 300;  // Ran 1000 s: last saved at 900.
  Decisions d = Decide(TwoFullNodes(running, 1000));
  EXPECT_THAT(Victims(d), ElementsAre("b-saves"));
}

// Equal cost: namespace/name decides, never the order jobs were added in.
TEST(VictimCost, TiesGoByNameNotByInternalOrder) {
  for (bool reversed : {false, true}) {
    std::vector<RunningJob> running = {Running("team/b-2", "bob", 2 * kGpu, "n-0", {0, 1}, 100),
                                       Running("team/b-1", "bob", 2 * kGpu, "n-0", {2, 3}, 100),
                                       Running("team/b-3", "bob", 2 * kGpu, "n-1", {0, 1}, 50),
                                       Running("team/b-4", "bob", 2 * kGpu, "n-1", {2, 3}, 50)};
    if (reversed) std::swap(running[0], running[1]);
    Decisions d = Decide(TwoFullNodes(running, 1000));
    EXPECT_THAT(Victims(d), ElementsAre("team/b-1")) << "reversed " << reversed;
  }
}

// Priority comes before work: a low-priority job goes first however much it loses.
TEST(VictimCost, LowerPriorityBeforeLessWork) {
  std::vector<RunningJob> running = {Running("b-low", "bob", 2 * kGpu, "n-0", {0, 1}, 0, 0),
                                     Running("b-high", "bob", 2 * kGpu, "n-0", {2, 3}, 990, 5),
                                     Running("b-high-2", "bob", 2 * kGpu, "n-1", {0, 1}, 990, 5),
                                     Running("b-high-3", "bob", 2 * kGpu, "n-1", {2, 3}, 990, 5)};
  Decisions d = Decide(TwoFullNodes(running, 1000));
  EXPECT_THAT(Victims(d), ElementsAre("b-low"));
}

// A gang takes its victims in the same order across the pool.
TEST(VictimCost, GangVictimsAreTheCheapest) {
  std::vector<RunningJob> running = {Running("b-a", "bob", 2 * kGpu, "n-0", {0, 1}, 0),
                                     Running("b-b", "bob", 2 * kGpu, "n-0", {2, 3}, 900),
                                     Running("b-c", "bob", 2 * kGpu, "n-1", {0, 1}, 950),
                                     Running("b-d", "bob", 2 * kGpu, "n-1", {2, 3}, 10)};
  Snapshot s = TwoFullNodes(running, 1000);
  s.projects[1].quotas[0].gpu = 4 * kGpu;
  s.pending = {Job("joe-gang", "train", "joe", 2 * kGpu, 2)};
  Decisions d = Decide(s);
  EXPECT_THAT(Victims(d), UnorderedElementsAre("b-b", "b-c"));
}

// Departments come first: the victim of a department over its quota goes before a
// lower-priority one that loses less work, whose department is within its quota.
TEST(VictimCost, DepartmentOverItsQuotaBeforePriorityAndWork) {
  for (bool departments : {false, true}) {
    std::vector<RunningJob> running = {Running("b-1", "bob", 2 * kGpu, "n-0", {0, 1}, 0, 5),
                                       Running("b-2", "bob", 2 * kGpu, "n-0", {2, 3}, 0, 5),
                                       Running("a-1", "ann", 2 * kGpu, "n-1", {0, 1}, 999),
                                       Running("a-2", "ann", 2 * kGpu, "n-1", {2, 3}, 999)};
    ClusterBuilder cluster;
    cluster.Nodes(2, 4, "n").AddQueue("train", Sharing::kGuaranteed);
    cluster.AddProject("bob", "train", 0).AddProject("ann", "train", 0);
    cluster.AddProject("joe", "train", 2 * kGpu);
    if (departments) {
      cluster.AddDepartment("ops", "train", kGpu).InDepartment("bob", "ops");
      cluster.AddDepartment("research", "train", 8 * kGpu).InDepartment("ann", "research");
      cluster.InDepartment("joe", "research");
    }
    Snapshot s = cluster.Build();
    s.now = 1000;
    s.running = running;
    s.pending.push_back(Job("joe-1", "train", "joe", 2 * kGpu));
    Decisions d = Decide(s);
    EXPECT_THAT(Victims(d), ElementsAre(departments ? "b-1" : "a-1")) << departments;
  }
}

// A gang takes from a department over its quota only until it is back at its
// quota, then from the next department over its quota before any other victim.
TEST(VictimCost, GangTakesFromDepartmentsOverQuotaUntilTheirQuota) {
  std::vector<RunningJob> running = {Running("b-1", "bob", 2 * kGpu, "n-0", {0, 1}, 900),
                                     Running("b-2", "bob", 2 * kGpu, "n-0", {2, 3}, 900),
                                     Running("e-1", "eve", 2 * kGpu, "n-1", {0, 1}, 0),
                                     Running("e-2", "eve", 2 * kGpu, "n-1", {2, 3}, 0)};
  ClusterBuilder cluster;
  cluster.Nodes(2, 4, "n").AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("bob", "train", 0).AddProject("eve", "train", 0);
  cluster.AddProject("joe", "train", 4 * kGpu);
  cluster.AddDepartment("ops", "train", 2 * kGpu).InDepartment("bob", "ops");
  cluster.AddDepartment("eng", "train", 2 * kGpu).InDepartment("eve", "eng");
  Snapshot s = cluster.Build();
  s.now = 1000;
  s.running = running;
  s.pending = {Job("joe-gang", "train", "joe", 2 * kGpu, 2)};
  Decisions d = Decide(s);
  EXPECT_THAT(Victims(d), UnorderedElementsAre("b-1", "e-1"));
}

// Reclaim waits, a bounded time, for over-quota work that is about to end.
Snapshot EndingWork(Seconds now, Seconds wait) {
  std::vector<RunningJob> running = {Running("b-1", "bob", 2 * kGpu, "n-0", {0, 1}, 0),
                                     Running("b-2", "bob", 2 * kGpu, "n-0", {2, 3}, 0),
                                     Running("b-3", "bob", 2 * kGpu, "n-1", {0, 1}, 0),
                                     Running("b-4", "bob", 2 * kGpu, "n-1", {2, 3}, 0)};
  running[2].expected_runtime_seconds = 1000;  // Ends at 1000.
  Snapshot s = TwoFullNodes(running, now);
  s.queues[0].reclaim_wait_seconds = wait;
  return s;
}

TEST(ReclaimWait, WaitsForOverQuotaWorkAboutToEnd) {
  Decisions d = Decide(EndingWork(900, 300));
  EXPECT_THAT(d.preemptions, IsEmpty());
  ASSERT_NE(FindWaiting(d, "joe-1"), nullptr);
  EXPECT_EQ(FindWaiting(d, "joe-1")->code, WaitCode::kCapacity);
  EXPECT_THAT(FindWaiting(d, "joe-1")->message,
              HasSubstr("reclaim waits up to 300 s for over-quota work about to end"));
}

TEST(ReclaimWait, IsBounded) {
  // Ends later than the queue waits: reclaim at once.
  EXPECT_THAT(Victims(Decide(EndingWork(600, 300))), ElementsAre("b-1"));
  // Past its expected end and still running: no more waiting.
  EXPECT_THAT(Victims(Decide(EndingWork(1001, 300))), ElementsAre("b-1"));
  // The queue does not wait at all.
  EXPECT_THAT(Victims(Decide(EndingWork(900, 0))), ElementsAre("b-1"));
}

// Reclaim spares over-quota work that has run longer than the queue's
// reclaimMaxRuntimeSeconds: the project waits for it to end instead.
Snapshot LongAndShortRunning(Seconds now, Seconds max_runtime) {
  std::vector<RunningJob> running = {Running("b-1", "bob", 2 * kGpu, "n-0", {0, 1}, 0),
                                     Running("b-2", "bob", 2 * kGpu, "n-0", {2, 3}, 0),
                                     Running("b-3", "bob", 2 * kGpu, "n-1", {0, 1}, 0),
                                     Running("b-4", "bob", 2 * kGpu, "n-1", {2, 3}, 5000)};
  Snapshot s = TwoFullNodes(running, now);
  s.queues[0].reclaim_max_runtime_seconds = max_runtime;
  s.queues[0].immediate_guarantee_percent = 0;  // Joe holds nothing: spare from the start.
  return s;
}

TEST(ReclaimMaxRuntime, SparesWorkThatHasRunLonger) {
  // Without the setting the cheapest victim is the youngest, b-4 (ran 1,000 s).
  EXPECT_THAT(Victims(Decide(LongAndShortRunning(6000, 0))), ElementsAre("b-4"));
  // With it, only b-4 is young enough: still b-4.
  EXPECT_THAT(Victims(Decide(LongAndShortRunning(6000, 1000))), ElementsAre("b-4"));
  // b-4 is now too old as well: nothing is reclaimed and the job says why.
  Decisions d = Decide(LongAndShortRunning(6001, 1000));
  EXPECT_THAT(d.preemptions, IsEmpty());
  ASSERT_NE(FindWaiting(d, "joe-1"), nullptr);
  EXPECT_EQ(FindWaiting(d, "joe-1")->code, WaitCode::kCapacity);
  EXPECT_THAT(FindWaiting(d, "joe-1")->message,
              HasSubstr("reclaim stops no over-quota work that has run longer than 1000 s once "
                        "the project holds 0 % of its guarantee"));
}

// Below immediateGuaranteePercent of its guarantee a project spares nothing.
TEST(ReclaimMaxRuntime, BelowTheImmediatePercentSparesNothing) {
  std::vector<RunningJob> running = {Running("b-1", "bob", 2 * kGpu, "n-0", {0, 1}, 0),
                                     Running("b-2", "bob", 2 * kGpu, "n-0", {2, 3}, 0),
                                     Running("b-3", "bob", 2 * kGpu, "n-1", {0, 1}, 0),
                                     Running("b-4", "bob", kGpu, "n-1", {2}, 0),
                                     Running("j-1", "joe", kGpu, "n-1", {3}, 0)};
  Snapshot s = TwoFullNodes(running, 6001);  // Joe holds 1 GPU of his 2 and asks 1 more.
  s.pending = {Job("joe-2", "train", "joe", kGpu)};
  s.queues[0].reclaim_max_runtime_seconds = 1000;
  s.queues[0].immediate_guarantee_percent = 50;
  EXPECT_THAT(Decide(s).preemptions, IsEmpty());  // 1 GPU held is 50 %: sparing.
  s.queues[0].immediate_guarantee_percent = 51;
  EXPECT_THAT(Victims(Decide(s)), Not(IsEmpty()));
}

TEST(ReclaimMaxRuntime, SparesGangVictimsToo) {
  Snapshot s = LongAndShortRunning(6001, 1000);
  s.pending = {Job("joe-gang", "train", "joe", kGpu, 2)};
  EXPECT_THAT(Decide(s).preemptions, IsEmpty());
  s.queues[0].reclaim_max_runtime_seconds = 0;
  EXPECT_THAT(Decide(s).preemptions, Not(IsEmpty()));
}

// In-project priority preemption is the project's own: the setting leaves it alone.
TEST(ReclaimMaxRuntime, LeavesInProjectPreemptionAlone) {
  Snapshot s = LongAndShortRunning(6001, 1000);
  s.running[3] = Running("j-1", "joe", 2 * kGpu, "n-1", {2, 3}, 0);  // Bob below his limit.
  s.pending = {Job("bob-urgent", "train", "bob", 2 * kGpu, 1, WorkloadClass::kTrain, 10)};
  EXPECT_THAT(Victims(Decide(s)), ElementsAre("b-1"));
}

}  // namespace
}  // namespace gpupool::engine::testing
