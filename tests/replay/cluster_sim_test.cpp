// The discrete-event simulation, driven by small test schedulers so its own
// bookkeeping (clock, queue order, preemption, statistics) is checked alone.
#include "gpupool/replay/cluster_sim.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "replay/philly_report.h"

namespace gpupool::replay {
namespace {

using ::testing::HasSubstr;

// Starts pending jobs in arrival order on the first nodes with room, skipping
// those that do not fit (no quotas: only the simulation is under test).
class FirstFitScheduler : public Scheduler {
 public:
  CycleDecisions Decide(const ClusterView& view) override {
    ++cycles;
    arrived += view.arrived->size();
    finished += view.finished->size();
    std::vector<int> free = *view.free_gpus;
    CycleDecisions decisions;
    for (int64_t index : *view.pending) {
      const SimJob& job = (*view.jobs)[index];
      StartDecision start{index};
      for (int node = 0; node < int(free.size()) && int(start.nodes.size()) < job.replicas;) {
        if (free[node] >= job.gpus_per_replica) {
          free[node] -= job.gpus_per_replica;
          start.nodes.push_back(node);
        } else {
          ++node;
        }
      }
      if (int(start.nodes.size()) == job.replicas) {
        decisions.start.push_back(start);
      } else {
        for (int node : start.nodes) free[node] += job.gpus_per_replica;
      }
    }
    if (extra) extra(view, decisions);
    return decisions;
  }
  std::function<void(const ClusterView&, CycleDecisions&)> extra;
  int cycles = 0;
  size_t arrived = 0, finished = 0;
};

std::vector<TenantQuota> Tenants() { return {{"a", 1, 2}, {"b", 1, 2}}; }

SimOptions Options(int nodes, int gpus, double cycle = 0) {
  SimOptions options;
  options.shape = {nodes, gpus};
  options.cycle_seconds = cycle;
  return options;
}

TEST(ClusterSimTest, JobsQueueForCapacityAndFinish) {
  const std::vector<PhillyJob> trace = {{2, 0, 100, 2, "a"}, {3, 0, 50, 2, "b"}};
  FirstFitScheduler scheduler;
  const auto outcome = RunClusterSimulation(trace, Tenants(), Options(1, 2), scheduler);
  ASSERT_EQ(outcome.jobs.size(), 2u);
  EXPECT_EQ(outcome.jobs[0].first_start, 0);
  EXPECT_EQ(outcome.jobs[0].finish, 100);
  EXPECT_EQ(outcome.jobs[1].first_start, 100);  // waited for the node
  EXPECT_EQ(outcome.jobs[1].finish, 150);
  EXPECT_EQ(outcome.makespan, 150);
  EXPECT_EQ(scheduler.arrived, 2u);
  EXPECT_EQ(scheduler.finished, 1u);  // the second completion needs no cycle
  EXPECT_DOUBLE_EQ(outcome.allocated_gpus.Average(0, 150), 2);
}

TEST(ClusterSimTest, LargeJobsBecomeGangsOfNodeSizedReplicas) {
  const std::vector<PhillyJob> trace = {{2, 0, 10, 16, "a"}, {3, 0, 10, 12, "b"}};
  FirstFitScheduler scheduler;
  const auto outcome = RunClusterSimulation(trace, Tenants(), Options(4, 8), scheduler);
  EXPECT_EQ(outcome.jobs[0].replicas, 2);
  EXPECT_EQ(outcome.jobs[0].gpus_per_replica, 8);
  EXPECT_EQ(outcome.jobs[1].replicas, 2);
  EXPECT_EQ(outcome.jobs[1].gpus_per_replica, 6);
  EXPECT_EQ(outcome.jobs[1].first_start, 0);
}

TEST(ClusterSimTest, CyclesRunOnTheirGrid) {
  const std::vector<PhillyJob> trace = {{2, 10, 100, 1, "a"}, {3, 20, 100, 1, "b"}};
  FirstFitScheduler scheduler;
  const auto outcome = RunClusterSimulation(trace, Tenants(), Options(1, 2, 60), scheduler);
  EXPECT_EQ(outcome.jobs[0].first_start, 60);
  EXPECT_EQ(outcome.jobs[1].first_start, 60);
  EXPECT_EQ(scheduler.cycles, 1);
}

TEST(ClusterSimTest, PreemptedJobsRequeueLoseTheirWorkAndRestart) {
  // a runs from 0; b arrives at 30 and the scheduler preempts a for it.
  const std::vector<PhillyJob> trace = {{2, 0, 100, 2, "a"}, {3, 30, 10, 2, "b"}};
  FirstFitScheduler scheduler;
  scheduler.extra = [](const ClusterView& view, CycleDecisions& decisions) {
    if (view.now == 30 && view.running->count(0)) {
      decisions.preempt.push_back(0);
      decisions.start.push_back({1, {0}});  // into the room job 0 leaves
    }
  };
  const auto outcome = RunClusterSimulation(trace, Tenants(), Options(1, 2), scheduler);
  const SimJob& a = outcome.jobs[0];
  EXPECT_EQ(a.preemptions, 1);
  EXPECT_DOUBLE_EQ(a.gpu_seconds_lost, 2 * 30);
  EXPECT_EQ(a.first_start, 0);
  EXPECT_EQ(outcome.jobs[1].first_start, 30);
  EXPECT_EQ(outcome.jobs[1].finish, 40);
  EXPECT_EQ(a.finish, 140);  // restarted at 40, its stale completion at 100 ignored
  const auto report = SummarizePhilly(outcome, Tenants(), Options(1, 2), 0);
  EXPECT_EQ(report.tenants[0].preemptions, 1u);
  EXPECT_DOUBLE_EQ(report.tenants[0].gpu_hours_lost, 60.0 / 3600);
  EXPECT_DOUBLE_EQ(report.tenants[0].wait_seconds.mean, 0);
  EXPECT_DOUBLE_EQ(report.tenants[0].jct_seconds.mean, 140);
  EXPECT_EQ(report.all.jobs, 2u);
}

// With checkpoints every 20 s, the job preempted at 30 keeps 20 s of its work and
// restarts from there: it loses 10 s and needs 80 s more.
TEST(ClusterSimTest, PreemptedJobsRestartFromTheirLastCheckpoint) {
  const std::vector<PhillyJob> trace = {{2, 0, 100, 2, "a"}, {3, 30, 10, 2, "b"}};
  FirstFitScheduler scheduler;
  scheduler.extra = [](const ClusterView& view, CycleDecisions& decisions) {
    if (view.now == 30 && view.running->count(0)) {
      decisions.preempt.push_back(0);
      decisions.start.push_back({1, {0}});
    }
  };
  SimOptions options = Options(1, 2);
  options.checkpoint_interval_seconds = 20;
  const auto outcome = RunClusterSimulation(trace, Tenants(), options, scheduler);
  const SimJob& a = outcome.jobs[0];
  EXPECT_DOUBLE_EQ(a.gpu_seconds_lost, 2 * 10);
  EXPECT_DOUBLE_EQ(a.saved_seconds, 20);
  EXPECT_EQ(a.finish, 40 + 80);
  const auto report = SummarizePhilly(outcome, Tenants(), options, 0);
  EXPECT_DOUBLE_EQ(report.work_gpu_hours, (2 * 100 + 2 * 10) / 3600.0);
}

// Waits are compared over the jobs both runs started: tenant a's second job never
// starts under static quotas, so its long wait under guaranteed ones is no evidence
// (its mean over every started job would be 502.5 s against 10 s).
TEST(ClusterSimTest, TenantsWaitingLongerCompareTheJobsBothRunsStarted) {
  PolicyReport fixed;
  fixed.tenants = {{"a"}, {"b"}};
  fixed.job_tenants = {0, 0, 1, 1};
  PolicyReport guaranteed = fixed;
  fixed.job_waits = {10, -1, 1, 1};
  guaranteed.job_waits = {5, 1000, 2, 2};
  EXPECT_EQ(TenantsWaitingLonger(fixed, guaranteed), std::vector<std::string>{"b"});
  guaranteed.job_waits = {11, 1000, 1, 1};
  EXPECT_EQ(TenantsWaitingLonger(fixed, guaranteed), std::vector<std::string>{"a"});
}

TEST(ClusterSimTest, JobsThatNeverFitAreReportedNotLost) {
  const std::vector<PhillyJob> trace = {{2, 0, 10, 4, "a"}, {3, 0, 10, 1, "b"}};
  FirstFitScheduler scheduler;
  const auto outcome = RunClusterSimulation(trace, Tenants(), Options(1, 2), scheduler);
  const auto report = SummarizePhilly(outcome, Tenants(), Options(1, 2), 0);
  EXPECT_EQ(report.tenants[0].never_started, 1u);
  EXPECT_EQ(report.tenants[1].finished, 1u);
  EXPECT_EQ(report.all.never_started, 1u);
}

TEST(ClusterSimTest, SchedulerMistakesAreCaught) {
  const std::vector<PhillyJob> trace = {{2, 0, 10, 2, "a"}, {3, 0, 10, 2, "b"}};
  FirstFitScheduler overfill;
  overfill.extra = [](const ClusterView&, CycleDecisions& decisions) {
    decisions.start.push_back({1, {0}});
  };
  try {
    RunClusterSimulation(trace, Tenants(), Options(1, 2), overfill);
    FAIL() << "over-filled node accepted";
  } catch (const std::logic_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("not enough free GPUs"));
  }
  FirstFitScheduler bad_victim;
  bad_victim.extra = [](const ClusterView&, CycleDecisions& decisions) {
    decisions.preempt.push_back(1);
  };
  EXPECT_THROW(RunClusterSimulation(trace, Tenants(), Options(1, 2), bad_victim), std::logic_error);
  const std::vector<PhillyJob> unknown = {{2, 0, 10, 2, "z"}};
  EXPECT_THROW(RunClusterSimulation(unknown, Tenants(), Options(1, 2), overfill),
               std::invalid_argument);
}

TEST(ClusterSimTest, ReportsAsJsonAndCharts) {
  const std::vector<PhillyJob> trace = {{2, 0, 100, 2, "a"}, {3, 0, 50, 2, "b"}};
  FirstFitScheduler scheduler;
  const auto outcome = RunClusterSimulation(trace, Tenants(), Options(1, 2), scheduler);
  const auto report = SummarizePhilly(outcome, Tenants(), Options(1, 2), 0.5);
  const auto json = PhillyJson({report});
  EXPECT_EQ(json["policies"][0]["tenants"][1]["wait_seconds"]["p50"], 100);
  EXPECT_EQ(json["policies"][0]["policy"], "guaranteed");
  std::ostringstream table;
  PrintPhillyTables(table, {report});
  EXPECT_THAT(table.str(), HasSubstr("policy guaranteed: 2 GPUs"));
  const auto dir = ::testing::TempDir() + "/replay-charts";
  const auto paths = WritePhillyCharts(dir, {report});
  EXPECT_EQ(paths.size(), 2u);
  EXPECT_TRUE(std::filesystem::exists(paths[0]));
}

}  // namespace
}  // namespace gpupool::replay
