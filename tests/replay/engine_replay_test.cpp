// The replay on the real engine: small hand-made traces whose outcome under
// static and guaranteed quotas is known, and slices of the real traces.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "gpupool/replay/engine_scheduler.h"
#include "gpupool/replay/runner.h"
#include "replay/engine_placer.h"
#include "replay/fragmentation.h"
#include "test_files.h"

namespace gpupool::replay {
namespace {

using ::testing::HasSubstr;

// Two tenants with 2 GPUs of quota each on one 4-GPU node. a's 4 jobs arrive
// first; b's 2 arrive while a holds every GPU.
std::vector<PhillyJob> SusanAndJoe() {
  return {{2, 0, 1000, 1, "a"}, {3, 0, 1000, 1, "a"},  {4, 0, 1000, 1, "a"},
          {5, 0, 1000, 1, "a"}, {6, 100, 300, 1, "b"}, {7, 100, 300, 1, "b"}};
}

SimOutcome Replay(QuotaPolicy policy) {
  const std::vector<TenantQuota> tenants = {{"a", 1, 2}, {"b", 1, 2}};
  const ClusterShape shape{1, 4};
  EngineScheduler scheduler(shape, tenants, policy, 0);
  static std::vector<PhillyJob> trace;
  trace = SusanAndJoe();
  return RunClusterSimulation(trace, tenants, {policy, shape, 0}, scheduler);
}

TEST(EngineReplayTest, StaticQuotasCapEachTenant) {
  const auto outcome = Replay(QuotaPolicy::kStatic);
  EXPECT_EQ(outcome.jobs[2].first_start, 1000);  // a's third job waits for its own quota
  EXPECT_EQ(outcome.jobs[4].first_start, 100);   // b's jobs start on arrival
  for (const auto& job : outcome.jobs) EXPECT_EQ(job.preemptions, 0);
}

TEST(EngineReplayTest, GuaranteedQuotasLendAndReclaim) {
  const auto outcome = Replay(QuotaPolicy::kGuaranteed);
  int preempted = 0;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(outcome.jobs[i].first_start, 0);  // a borrows b's idle quota
    preempted += outcome.jobs[i].preemptions;
  }
  EXPECT_EQ(preempted, 2);                      // reclaimed for b
  EXPECT_EQ(outcome.jobs[4].first_start, 100);  // b gets its quota back at once
  EXPECT_EQ(outcome.jobs[5].first_start, 100);
}

TEST(EngineReplayTest, PooledSharesTheClusterInArrivalOrderWithoutPreempting) {
  const auto outcome = Replay(QuotaPolicy::kPooled);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(outcome.jobs[i].first_start, 0);  // no quota caps a
  EXPECT_EQ(outcome.jobs[4].first_start, 1000);  // b waits for a's jobs to end
  EXPECT_EQ(outcome.jobs[5].first_start, 1000);
  for (const auto& job : outcome.jobs) EXPECT_EQ(job.preemptions, 0);
}

TEST(EngineReplayTest, PooledSnapshotHasOneProjectHoldingTheWholeCluster) {
  const std::vector<TenantQuota> tenants = {{"a", 1, 2}, {"b", 1, 2}};
  const auto snapshot = PhillySnapshot({3, 4}, tenants, QuotaPolicy::kPooled, 0);
  ASSERT_EQ(snapshot.projects.size(), 1u);
  ASSERT_EQ(snapshot.projects[0].quotas.size(), 1u);
  EXPECT_EQ(snapshot.projects[0].quotas[0].gpu, 12 * engine::kMilliPerGpu);
  EXPECT_EQ(snapshot.queues[0].sharing, engine::Sharing::kFixed);
}

// One 4-GPU node busy until 1000 s; a 4-GPU job (500 s) arrives before a 1-GPU
// job (100 s). In arrival order the larger starts first; smallest first, the
// smaller does and the larger follows when it ends.
SimOutcome ReplayInOrder(JobOrder order) {
  const std::vector<TenantQuota> tenants = {{"a", 1, 4}};
  const ClusterShape shape{1, 4};
  ReclaimSettings settings;
  settings.order = order;
  EngineScheduler scheduler(shape, tenants, QuotaPolicy::kPooled, 0, 0, settings);
  static std::vector<PhillyJob> trace;
  trace = {{2, 0, 1000, 4, "a"}, {3, 10, 500, 4, "a"}, {4, 20, 100, 1, "a"}};
  return RunClusterSimulation(trace, tenants, {QuotaPolicy::kPooled, shape, 0}, scheduler);
}

TEST(EngineReplayTest, ArrivalOrderStartsTheEarlierJobFirst) {
  const auto outcome = ReplayInOrder(JobOrder::kArrival);
  EXPECT_EQ(outcome.jobs[1].first_start, 1000);
  EXPECT_EQ(outcome.jobs[2].first_start, 1500);
}

TEST(EngineReplayTest, FewestGpusOrderStartsTheSmallerJobFirstWithoutPreempting) {
  const auto outcome = ReplayInOrder(JobOrder::kFewestGpus);
  EXPECT_EQ(outcome.jobs[2].first_start, 1000);
  EXPECT_EQ(outcome.jobs[1].first_start, 1100);
  for (const auto& job : outcome.jobs) EXPECT_EQ(job.preemptions, 0);
}

TEST(EngineReplayTest, FewestGpusOrderDeclaresMinusTheGpusAsPriority) {
  ReclaimSettings settings;
  settings.order = JobOrder::kFewestGpus;
  const auto snapshot =
      PhillySnapshot({1, 4}, {{"a", 1, 4}}, QuotaPolicy::kGuaranteed, 0, settings);
  EXPECT_FALSE(snapshot.queues[0].preempt_in_project);
  EXPECT_TRUE(PhillySnapshot({1, 4}, {{"a", 1, 4}}, QuotaPolicy::kGuaranteed, 0)
                  .queues[0]
                  .preempt_in_project);
}

TEST(EngineReplayTest, EnginePlacerPlacesFractionsOnTheNodeList) {
  const std::vector<AlibabaNode> nodes = {{"a", 64000, 1000, 2, "T4"},
                                          {"b", 64000, 1000, 8, "V100M16"}};
  const std::vector<AlibabaTask> tasks = {{"x", 1000, 10, 1, 700, ""},
                                          {"y", 1000, 10, 1, 300, ""},
                                          {"z", 1000, 10, 2, 1000, "V100M16"},
                                          {"c", 1000, 10, 0, 0, ""}};
  EnginePlacer placer(nodes, tasks, engine::Packing::kFragmentationAware, "gpupool");
  const auto experiment = RunFragmentation(nodes, tasks, 50, 42, {&placer});
  EXPECT_EQ(experiment.runs[0].failed, 0u);
  EXPECT_GT(experiment.runs[0].AllocatedPercent(), 0);
}

TEST(EngineReplayTest, PhillySliceEndToEnd) {
  if (testing::TraceFileOrEmpty("philly-vc/philly.csv").empty()) {
    GTEST_SKIP() << "Philly trace not found under " << TraceDir();
  }
  // 2,000 jobs on 30 nodes: a few seconds, enough for big jobs to meet small quotas.
  const auto options = ParseReplayArgs(std::vector<std::string>{"--trace", "philly", "--max-jobs",
                                                                "2000", "--nodes", "30", "--json"});
  std::ostringstream out, err;
  ASSERT_EQ(RunReplay(options, out, err), 0) << err.str();
  const auto json = nlohmann::json::parse(out.str());
  ASSERT_EQ(json["policies"].size(), 2u);
  EXPECT_EQ(json["policies"][0]["policy"], "static");
  EXPECT_EQ(json["policies"][0]["all"]["preemptions"], 0);
  EXPECT_EQ(json["policies"][1]["all"]["jobs"], 2000);
  // Lending idle quota lets every job start; static quotas strand the large ones.
  EXPECT_EQ(json["policies"][1]["all"]["never_started"], 0);
  EXPECT_GT(json["policies"][0]["all"]["never_started"], 0);
  EXPECT_GT(json["policies"][1]["utilization_percent"], json["policies"][0]["utilization_percent"]);
}

// The whole trace with incremental cycles between hourly full ones: the simulator
// checks every decision (a job started twice, or one not pending, stops the run).
TEST(EngineReplayTest, WholePhillyTraceWithIncrementalCycles) {
  if (testing::TraceFileOrEmpty("philly-vc/philly.csv").empty()) {
    GTEST_SKIP() << "Philly trace not found under " << TraceDir();
  }
  const auto options = ParseReplayArgs(std::vector<std::string>{
      "--trace", "philly", "--full-cycle-interval-seconds", "3600", "--json"});
  std::ostringstream out, err;
  ASSERT_EQ(RunReplay(options, out, err), 0) << err.str();
  const auto json = nlohmann::json::parse(out.str());
  ASSERT_EQ(json["policies"].size(), 2u);
  EXPECT_EQ(json["policies"][1]["all"]["never_started"], 0);
  EXPECT_GT(json["policies"][1]["utilization_percent"], json["policies"][0]["utilization_percent"]);
}

TEST(EngineReplayTest, MissingTraceIsAClearError) {
  const auto options = ParseReplayArgs(
      std::vector<std::string>{"--trace", "alibaba", "--trace-dir", "/nonexistent"});
  std::ostringstream out, err;
  EXPECT_EQ(RunReplay(options, out, err), 1);
  EXPECT_THAT(err.str(), HasSubstr("/nonexistent/alibaba-gpu-2023/openb_node_list_gpu_node.csv: "
                                   "cannot open file"));
}

}  // namespace
}  // namespace gpupool::replay
