// One test (or table) per rule of docs/scheduling.md: quotas, order, reclaim,
// in-project preemption, non-preemptible classes, gangs and reservations.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_builder.h"

namespace gpupool::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

RunningJob Running(const std::string& name, const std::string& project, MilliGpu gpus,
                   const std::string& node, std::vector<int> devices, int priority = 0,
                   Seconds start = 0, WorkloadClass workload_class = WorkloadClass::kTrain) {
  RunningJob job;
  job.name = name;
  job.queue = "train";
  job.project = project;
  job.shape.gpu_milli = gpus;
  job.priority = priority;
  job.start_time = start;
  job.workload_class = workload_class;
  job.replicas = {{node, std::move(devices)}};
  return job;
}

TEST(FixedQueues, NeverAboveQuotaAndNothingLent) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 8).AddQueue("build", Sharing::kFixed);
  cluster.AddProject("a", "build", 2 * kGpu).AddProject("b", "build", 2 * kGpu);
  for (int i = 0; i < 4; ++i) cluster.Submit(Named("a-", i), "build", "a", kGpu);
  Decisions d = Decide(cluster.Build());
  EXPECT_THAT(Admitted(d), ElementsAre("a-0", "a-1"));  // 6 GPUs stay idle: nothing lent.
  EXPECT_EQ(FindWaiting(d, "a-2")->code, WaitCode::kQuota);
}

TEST(GuaranteedQueues, LimitCapsOverQuotaUse) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 8).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("a", "train", 2 * kGpu, 0, 3 * kGpu);
  for (int i = 0; i < 4; ++i) cluster.Submit(Named("a-", i), "train", "a", kGpu);
  Decisions d = Decide(cluster.Build());
  EXPECT_THAT(d.admissions, SizeIs(3));
  EXPECT_EQ(FindWaiting(d, "a-3")->message,
            "project a is at its limit of 3 GPUs in queue train (uses 3 GPUs, this job needs 1 "
            "GPU)");
  EXPECT_EQ(FindShare(d, "a", "train")->over_quota, kGpu);
}

// Room for one job: which one gets it?
TEST(AdmissionOrder, Table) {
  struct Case {
    const char* rule;
    std::vector<PendingJob> jobs;
    std::vector<int> project_priority;  // Of projects p0, p1.
    std::vector<MilliGpu> used;         // Running GPUs of p0, p1 on the other node.
    std::string winner;
  };
  auto job = [](const char* name, const char* project, int priority, Seconds arrival) {
    return Job(name, "train", project, kGpu, 1, WorkloadClass::kTrain, priority, arrival);
  };
  std::vector<Case> cases = {
      {"in-quota before over-quota, whatever the arrival",
       {job("over", "p0", 0, 1), job("in", "p1", 0, 2)},
       {0, 0},
       {2 * kGpu, 0},
       "in"},
      {"then project priority",
       {job("low", "p0", 0, 1), job("high", "p1", 0, 2)},
       {0, 5},
       {0, 0},
       "high"},
      {"then the lower dominant share",
       {job("busy", "p0", 0, 1), job("idle", "p1", 0, 2)},
       {0, 0},
       {kGpu, 0},
       "idle"},
      {"then job priority",
       {job("normal", "p0", 0, 1), job("urgent", "p0", 3, 2)},
       {0, 0},
       {0, 0},
       "urgent"},
      {"then arrival",
       {job("second", "p0", 0, 2), job("first", "p0", 0, 1)},
       {0, 0},
       {0, 0},
       "first"},
  };
  for (const Case& c : cases) {
    ClusterBuilder cluster;
    cluster.Nodes(1, 1, "free").Nodes(1, 2, "busy").AddQueue("train", Sharing::kGuaranteed);
    cluster.AddProject("p0", "train", 2 * kGpu, c.project_priority[0]);
    cluster.AddProject("p1", "train", 2 * kGpu, c.project_priority[1]);
    Snapshot s = cluster.Build();
    int device = 0;
    for (int p = 0; p < 2; ++p) {
      for (MilliGpu g = 0; g < c.used[p]; g += kGpu) {
        s.running.push_back(
            Running(Named("r", device), Named("p", p), kGpu, "busy-0", {device}, 0, 0));
        ++device;
      }
    }
    // Fill the busy node so only the free node's single GPU is left.
    while (device < 2) {
      s.running.push_back(Running(Named("filler", device), "other", kGpu, "busy-0", {device}, 9, 0,
                                  WorkloadClass::kInference));
      ++device;
    }
    s.pending = c.jobs;
    Decisions d = Decide(s);
    EXPECT_THAT(Admitted(d), ElementsAre(c.winner)) << c.rule;
  }
}

// Victims (one 1-GPU job each, so the work lost is the run so far): the lowest
// priority, then the shortest run, then the project furthest over its share; never
// below quota, never in-quota work, never younger than the queue's minimum runtime.
// victim_cost_test.cpp covers the order's other criteria.
TEST(Reclaim, VictimOrderTable) {
  struct Case {
    const char* rule;
    std::vector<RunningJob> running;
    std::string victim;
  };
  // Node n-0 has 4 GPUs; joe (quota 2) needs 1 and every GPU is taken.
  std::vector<Case> cases = {
      {"most over its share first",
       {Running("a1", "ann", kGpu, "n-0", {0}), Running("b1", "bob", kGpu, "n-0", {1}),
        Running("b2", "bob", kGpu, "n-0", {2}), Running("b3", "bob", kGpu, "n-0", {3})},
       "b1"},  // Ties (same priority and start) go by name.
      {"then lowest priority",
       {Running("b1", "bob", kGpu, "n-0", {0}, 2), Running("b2", "bob", kGpu, "n-0", {1}, 0),
        Running("b3", "bob", kGpu, "n-0", {2}, 1), Running("b4", "bob", kGpu, "n-0", {3}, 2)},
       "b2"},
      {"then the shortest run so far",
       {Running("b1", "bob", kGpu, "n-0", {0}, 0, 10),
        Running("b2", "bob", kGpu, "n-0", {1}, 0, 50),
        Running("b3", "bob", kGpu, "n-0", {2}, 0, 30),
        Running("b4", "bob", kGpu, "n-0", {3}, 0, 20)},
       "b2"},
      {"respecting the minimum runtime (600 s; now is 1000)",
       {Running("b1", "bob", kGpu, "n-0", {0}, 0, 100),
        Running("b2", "bob", kGpu, "n-0", {1}, 0, 900),
        Running("b3", "bob", kGpu, "n-0", {2}, 0, 200),
        Running("b4", "bob", kGpu, "n-0", {3}, 0, 300)},
       "b4"},
  };
  for (const Case& c : cases) {
    ClusterBuilder cluster;
    cluster.Nodes(1, 4, "n").AddQueue("train", Sharing::kGuaranteed, {}, 600);
    cluster.AddProject("ann", "train", 0).AddProject("bob", "train", kGpu);
    cluster.AddProject("joe", "train", 2 * kGpu);
    Snapshot s = cluster.Build();
    s.now = 1000;
    s.running = c.running;
    s.pending.push_back(Job("joe-1", "train", "joe", kGpu));
    Decisions d = Decide(s);
    EXPECT_THAT(Victims(d), ElementsAre(c.victim)) << c.rule;
    EXPECT_THAT(Admitted(d), ElementsAre("joe-1")) << c.rule;
  }
}

TEST(Reclaim, NeverTakesAProjectBelowItsQuotaNorInQuotaWork) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 4, "n").AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("bob", "train", 3 * kGpu).AddProject("joe", "train", 2 * kGpu);
  Snapshot s = cluster.Build();
  // Bob runs 4 GPUs with quota 3: only 1 GPU is over quota, in one 2-GPU job and
  // two 1-GPU jobs. Joe needs 2: taking any of them would leave bob below 3.
  s.running = {Running("b1", "bob", 2 * kGpu, "n-0", {0, 1}),
               Running("b2", "bob", kGpu, "n-0", {2}), Running("b3", "bob", kGpu, "n-0", {3})};
  s.pending.push_back(Job("joe-1", "train", "joe", 2 * kGpu));
  Decisions d = Decide(s);
  EXPECT_THAT(d.preemptions, IsEmpty());
  EXPECT_EQ(FindWaiting(d, "joe-1")->code, WaitCode::kCapacity);
}

TEST(Reclaim, MinimalVictimSet) {
  ClusterBuilder cluster;
  cluster.Nodes(2, 2, "n").AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("bob", "train", 0).AddProject("joe", "train", 2 * kGpu);
  Snapshot s = cluster.Build();
  // Room for 2 GPUs needs both jobs of one node: n-1's two (b3, b4, the newest) lose
  // less than n-0's two.
  s.running = {
      Running("b1", "bob", kGpu, "n-0", {0}, 0, 1), Running("b2", "bob", kGpu, "n-0", {1}, 0, 2),
      Running("b3", "bob", kGpu, "n-1", {0}, 0, 3), Running("b4", "bob", kGpu, "n-0", {1}, 0, 4)};
  s.running[3].replicas = {{"n-1", {1}}};
  s.now = 100;
  s.pending.push_back(Job("joe-1", "train", "joe", 2 * kGpu));
  Decisions d = Decide(s);
  if (!d.waiting.empty()) ADD_FAILURE() << d.waiting[0].message;
  EXPECT_THAT(Victims(d), ElementsAre("b3", "b4"));
  ASSERT_NE(FindAdmission(d, "joe-1"), nullptr);
  EXPECT_EQ(FindAdmission(d, "joe-1")->replicas[0].node, "n-1");
  EXPECT_THAT(FindAdmission(d, "joe-1")->waits_for, SizeIs(2));
  EXPECT_EQ(FindAdmission(d, "joe-1")->message,
            "waiting for 2 GPUs being reclaimed from project bob");
}

// Room taken back from two projects: the admission names both, with their GPUs.
TEST(Reclaim, AdmissionNamesEveryProjectItWaitsFor) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 2, "n").AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("ann", "train", 0).AddProject("bob", "train", 0);
  cluster.AddProject("joe", "train", 2 * kGpu);
  Snapshot s = cluster.Build();
  s.running = {Running("a1", "ann", kGpu, "n-0", {0}), Running("b1", "bob", kGpu, "n-0", {1})};
  s.now = 100;
  s.pending.push_back(Job("joe-1", "train", "joe", 2 * kGpu));
  Decisions d = Decide(s);
  ASSERT_NE(FindAdmission(d, "joe-1"), nullptr);
  EXPECT_EQ(FindAdmission(d, "joe-1")->message,
            "waiting for 2 GPUs being reclaimed from projects ann (1 GPU), bob (1 GPU)");
}

// Two projects that both want everything: after the first reclaim, neither takes
// from the other again, however many cycles run.
TEST(Reclaim, CannotLoop) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 4).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("a", "train", 2 * kGpu).AddProject("b", "train", 2 * kGpu);
  for (int i = 0; i < 6; ++i) cluster.Submit(Named("a-", i), "train", "a", kGpu);
  Engine engine(cluster.Build());
  EXPECT_THAT(engine.Decide().admissions, SizeIs(4));
  for (int i = 0; i < 6; ++i) {
    engine.AddPending(Job(Named("b-", i), "train", "b", kGpu, 1, WorkloadClass::kTrain, 0, 10));
  }
  std::size_t preemptions = 0;
  for (int cycle = 1; cycle <= 20; ++cycle) {
    engine.SetNow(10 * cycle);
    Decisions d = engine.Decide();
    for (const Preemption& p : d.preemptions) engine.VictimGone(p.victim);  // Pods stopped.
    preemptions += d.preemptions.size();
  }
  EXPECT_EQ(preemptions, 2u);  // b takes back its 2 GPUs once; then a stable split.
  EXPECT_EQ(Allocated(engine, "a", "train"), 2 * kGpu);
  EXPECT_EQ(Allocated(engine, "b", "train"), 2 * kGpu);
}

// A job beyond its project's quota that fits no free room may stop its own
// project's lower-priority work so that it fits the quota (pass 1), where over
// quota it could only swap for victims freeing all it takes; one that fits free
// room runs over quota and stops nothing.
TEST(InProjectPreemption, AJobBeyondItsQuotaStopsItsOwnLowerPriorityWorkOnlyWhenNoRoomIsFree) {
  // Node-0's devices 1 and 2 are free; project a runs a-low, b runs b-0.
  auto snapshot = [](MilliGpu quota_a, const std::string& job, MilliGpu gpus) {
    ClusterBuilder cluster;
    cluster.Nodes(1, 4).AddQueue("train", Sharing::kGuaranteed);
    cluster.AddProject("a", "train", quota_a).AddProject("b", "train", kGpu);
    Snapshot s = cluster.Build();
    s.running = {Running("a-low", "a", kGpu, "node-0", {0}),
                 Running("b-0", "b", kGpu, "node-0", {3})};
    s.pending = {Job(job, "train", "a", gpus, 1, WorkloadClass::kTrain, 10)};
    return s;
  };
  // 3 GPUs with a quota of 3: only with a-low's device, and then within quota.
  Decisions d = Decide(snapshot(3 * kGpu, "a-big", 3 * kGpu));
  ASSERT_NE(FindAdmission(d, "a-big"), nullptr);
  EXPECT_THAT(Victims(d), ElementsAre("a-low"));
  EXPECT_EQ(d.preemptions[0].reason, PreemptionReason::kProjectPriority);
  // 2 GPUs with a quota of 2: the free devices hold it, over quota.
  Decisions fits = Decide(snapshot(2 * kGpu, "a-fits", 2 * kGpu));
  ASSERT_NE(FindAdmission(fits, "a-fits"), nullptr);
  EXPECT_THAT(fits.preemptions, IsEmpty());
}

TEST(NonPreemptible, OnlyWithinQuotaAndNeverVictims) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 4).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("a", "train", kGpu).AddProject("b", "train", 3 * kGpu);
  cluster.Submit("serve-1", "train", "a", kGpu, 1, WorkloadClass::kInference);
  cluster.Submit("serve-2", "train", "a", kGpu, 1, WorkloadClass::kInference);
  Decisions d = Decide(cluster.Build());
  EXPECT_THAT(Admitted(d), ElementsAre("serve-1"));
  EXPECT_EQ(FindWaiting(d, "serve-2")->message,
            "Inference jobs run only within quota: project a uses 1 GPU of its 1 GPU in queue "
            "train, this job needs 1 GPU");

  // A project over its quota with Build work: reclaim cannot touch it.
  Snapshot s = cluster.Build();
  s.pending.clear();
  s.running = {Running("nb-1", "a", kGpu, "node-0", {0}, 0, 0, WorkloadClass::kBuild),
               Running("t-1", "a", 3 * kGpu, "node-0", {1, 2, 3})};
  s.pending.push_back(Job("b-1", "train", "b", 3 * kGpu));
  Decisions reclaim = Decide(s);
  EXPECT_THAT(Victims(reclaim), ElementsAre("t-1"));
}

TEST(Gangs, ElasticGangTakesWhatFitsAboveItsMinimum) {
  ClusterBuilder cluster;
  cluster.Nodes(2, 4).AddQueue("train", Sharing::kGuaranteed).AddProject("a", "train", 16 * kGpu);
  PendingJob& job = cluster.Submit("elastic", "train", "a", 4 * kGpu, 4);
  job.min_replicas = 2;
  Decisions d = Decide(cluster.Build());
  ASSERT_NE(FindAdmission(d, "elastic"), nullptr);
  EXPECT_THAT(FindAdmission(d, "elastic")->replicas, SizeIs(2));
}

// A large job and a stream of small ones on two full 8-GPU nodes: each cycle (10 s
// apart) the oldest small job ends and a new one arrives.
struct Stream {
  bool reserve = true;
  Seconds interval = 0;  // Options::full_cycle_interval_seconds.
  MilliGpu large_quota = 8 * kGpu;
  int large_priority = 0;
  MilliGpu small_quota = 16 * kGpu;
  int small_priority = 0;
  int large_arrives = 0;  // The cycle it is submitted in (0: before the first).
};
struct StreamResult {
  int started = 0;                // The cycle the large job started in (0: never).
  std::string small_held_reason;  // The last reason a small job waited for held room.
};

StreamResult RunStream(const Stream& stream) {
  ClusterBuilder cluster;
  cluster.Nodes(2, 8).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("big", "train", stream.large_quota);
  cluster.AddProject("small", "train", stream.small_quota);
  Snapshot s = cluster.Build();
  for (int d = 0; d < 16; ++d) {
    s.running.push_back(Running(Named("s-init-", d), "small", kGpu, d < 8 ? "node-0" : "node-1",
                                {d % 8}, stream.small_priority, 0));
  }
  PendingJob large =
      Job("large", "train", "big", 8 * kGpu, 1, WorkloadClass::kTrain, stream.large_priority);
  if (stream.large_arrives == 0) s.pending.push_back(large);
  Options options;
  options.reserve_for_blocked_jobs = stream.reserve;
  options.full_cycle_interval_seconds = stream.interval;
  Engine engine(s, options);
  StreamResult result;
  for (int cycle = 1; cycle <= 40 && !result.started; ++cycle) {
    engine.SetNow(cycle * 10);
    Snapshot now = engine.ToSnapshot();
    std::string oldest;
    Seconds oldest_start = 1 << 30;
    for (const RunningJob& r : now.running) {
      if (r.project == "small" && r.start_time < oldest_start) {
        oldest = r.name;
        oldest_start = r.start_time;
      }
    }
    if (!oldest.empty()) engine.Finish(oldest);
    engine.AddPending(Job(Named("s-", cycle), "train", "small", kGpu, 1, WorkloadClass::kTrain,
                          stream.small_priority, cycle * 10));
    if (cycle == stream.large_arrives) engine.AddPending(large);
    Decisions d = engine.Decide();
    if (FindAdmission(d, "large")) result.started = cycle;
    for (const Waiting& w : d.waiting) {
      if (w.code == WaitCode::kReservedForOther) result.small_held_reason = w.message;
    }
  }
  return result;
}

int CyclesUntilLargeJobStarts(bool reserve, Seconds interval = 0) {
  return RunStream({.reserve = reserve, .interval = interval}).started;
}

// A gang that must run inside one rack holds room in one rack (the roomiest), so
// room elsewhere stays usable by others.
TEST(Reservations, RequiredTopologyHoldsRoomInOneDomain) {
  ClusterBuilder cluster;
  cluster.Nodes(2, 4, "a", {{"rack", "a"}}).Nodes(2, 4, "b", {{"rack", "b"}});
  cluster.AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("gang", "train", 8 * kGpu, 1).AddProject("other", "train", 4 * kGpu);
  cluster.AddProject("filler", "train", 16 * kGpu);
  Snapshot s = cluster.Build();
  auto build = [](const char* name, MilliGpu gpus, const char* node, std::vector<int> devices) {
    return Running(name, "filler", gpus, node, std::move(devices), 0, 0, WorkloadClass::kBuild);
  };
  // Free: a-0 2, a-1 2 (rack a: 4), b-0 3, b-1 0 (rack b: 3). No node has 4.
  s.running = {build("f1", 2 * kGpu, "a-0", {0, 1}), build("f2", 2 * kGpu, "a-1", {0, 1}),
               build("f3", kGpu, "b-0", {0}), build("f4", 4 * kGpu, "b-1", {0, 1, 2, 3})};
  PendingJob& gang = s.pending.emplace_back(Job("gang-1", "train", "gang", 4 * kGpu, 2));
  gang.min_replicas = 2;
  gang.topology = {TopologyMode::kRequired, "rack"};
  s.pending.push_back(Job("other-1", "train", "other", 3 * kGpu));
  Decisions d = Decide(s);
  ASSERT_NE(FindWaiting(d, "gang-1"), nullptr);
  EXPECT_THAT(FindWaiting(d, "gang-1")->message, HasSubstr("4 GPUs are held for it"));
  ASSERT_NE(FindAdmission(d, "other-1"), nullptr) << FindWaiting(d, "other-1")->message;
  EXPECT_EQ(FindAdmission(d, "other-1")->replicas[0].node, "b-0");
}

TEST(Reservations, LargeGangStartsDespiteAStreamOfSmallJobs) {
  EXPECT_EQ(CyclesUntilLargeJobStarts(false), 0);  // Without reservation it starves.
  int cycles = CyclesUntilLargeJobStarts(true);
  EXPECT_GT(cycles, 0);
  EXPECT_LE(cycles, 9);  // Node 0's eight small jobs end one per cycle; nothing refills it.
  // Incremental cycles between full ones (every 50 s, cycles are 10 s apart) keep
  // holding the devices that free up on the held node; once they are all free the
  // next cycle is a full one, and the job starts as early as with full cycles only.
  EXPECT_EQ(CyclesUntilLargeJobStarts(true, 50), cycles);
  EXPECT_EQ(CyclesUntilLargeJobStarts(true, 1000), cycles);
  // Without the held devices topped up, small jobs would take them between full
  // cycles and it would not start at all: the hold is what makes it start.
  EXPECT_EQ(CyclesUntilLargeJobStarts(false, 50), 0);
}

// A job that starts waiting between full cycles holds room as well: an incremental
// cycle holds it when the job's project holds none.
TEST(Reservations, IncrementalCyclesHoldRoomForAJobThatArrivesBetweenFullOnes) {
  int full = RunStream({.large_arrives = 3}).started;
  EXPECT_GT(full, 3);
  EXPECT_LE(full, 3 + 16);  // At worst, every small job running then ends first.
  EXPECT_EQ(RunStream({.interval = 1000, .large_arrives = 3}).started, full);
  EXPECT_EQ(RunStream({.reserve = false, .interval = 1000, .large_arrives = 3}).started, 0);
}

// Over quota, a job holds room against over-quota work of lower priority only. With
// quotas of 0, all the work of both projects runs over quota.
TEST(Reservations, OverQuotaJobHoldsRoomFromLowerPriorityOverQuotaWork) {
  Stream over{.large_quota = 0, .large_priority = 200, .small_quota = 0, .small_priority = 50};
  StreamResult held = RunStream(over);
  EXPECT_GT(held.started, 0);
  EXPECT_LE(held.started, 9);
  EXPECT_THAT(held.small_held_reason,
              HasSubstr("held for job large of project big, which is first in line over its "
                        "quota and waits for room"));
  Stream later = over;
  later.large_arrives = 3;
  int full = RunStream(later).started;
  EXPECT_GT(full, 3);
  EXPECT_LE(full, 3 + 16);
  later.interval = 1000;  // Held by an incremental cycle.
  EXPECT_EQ(RunStream(later).started, full);
  // Work of the same priority is not kept off: the large job starves as before.
  Stream same = over;
  same.large_priority = 50;
  EXPECT_EQ(RunStream(same).started, 0);
  // Nor is in-quota work: the small project's guarantee covers its stream.
  Stream in_quota = over;
  in_quota.small_quota = 16 * kGpu;
  EXPECT_EQ(RunStream(in_quota).started, 0);
}

// Room held over quota is open to work of higher priority than its job's, even right
// after work of lower priority found no room of the same shape.
TEST(Reservations, OverQuotaRoomIsOpenToHigherPriorityAfterALowerOneFailed) {
  ClusterBuilder cluster;
  cluster.Nodes(2, 8).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("h", "train", 0).AddProject("a", "train", 0).AddProject("b", "train", 0);
  Snapshot s = cluster.Build();
  // Running work of priority 100: no job here may take its place.
  for (int d = 0; d < 4; ++d) {
    s.running.push_back(Running(Named("a-run-", d), "a", kGpu, "node-1", {d}, 100));
    s.running.push_back(Running(Named("b-run-", d), "b", kGpu, "node-1", {4 + d}, 100));
  }
  s.running.push_back(Running("b-run-4", "b", kGpu, "node-0", {0}, 100));
  // h uses nothing and goes first: its 8-GPU job holds node-0's 7 free GPUs against
  // over-quota work below priority 75. a (less used than b) tries next.
  s.pending.push_back(Job("large", "train", "h", 8 * kGpu, 1, WorkloadClass::kTrain, 75));
  s.pending.push_back(Job("a-low", "train", "a", kGpu, 1, WorkloadClass::kTrain, 50));
  s.pending.push_back(Job("b-high", "train", "b", kGpu, 1, WorkloadClass::kTrain, 100));
  Decisions d = Decide(s);
  ASSERT_NE(FindWaiting(d, "large"), nullptr);
  ASSERT_NE(FindWaiting(d, "a-low"), nullptr);  // It holds room of its own, on node-1.
  ASSERT_NE(FindAdmission(d, "b-high"), nullptr) << FindWaiting(d, "b-high")->message;
  EXPECT_EQ(FindAdmission(d, "b-high")->replicas[0].node, "node-0");
}

}  // namespace
}  // namespace gpupool::engine::testing
