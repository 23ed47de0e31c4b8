#include "replay/fragmentation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "gpupool/replay/traces.h"
#include "replay/frag_report.h"
#include "test_files.h"

namespace gpupool::replay {
namespace {

using ::testing::HasSubstr;

AlibabaTask Task(int num_gpu, int milli, int64_t cpu = 1000, std::string spec = "") {
  return {"t", cpu, 10, num_gpu, milli, std::move(spec)};
}

std::vector<AlibabaNode> Nodes() {
  return {{"a", 64000, 1000, 2, "T4"}, {"b", 64000, 1000, 8, "V100M16"}};
}

TEST(BestFitTest, PicksTheNodeWithLeastLeftAndTheFullestDevice) {
  const auto nodes = Nodes();
  FragCluster cluster(nodes);
  BestFitPlacer best_fit;
  auto placement = best_fit.Place(cluster, Task(1, 500), 0);
  ASSERT_TRUE(placement.has_value());
  EXPECT_EQ(placement->node, 0);  // the 2-GPU node has less left
  cluster.Apply(*placement, Task(1, 500));
  placement = best_fit.Place(cluster, Task(1, 300), 1);
  ASSERT_TRUE(placement.has_value());
  EXPECT_EQ(placement->devices, std::vector<int>{0});  // shares the used device
  // Whole GPUs need fully free devices; model constraints are honoured.
  placement = best_fit.Place(cluster, Task(2, 1000), 2);
  ASSERT_TRUE(placement.has_value());
  EXPECT_EQ(placement->node, 1);
  EXPECT_FALSE(best_fit.Place(cluster, Task(1, 100, 1000, "A10"), 3).has_value());
  EXPECT_FALSE(best_fit.Place(cluster, Task(1, 100, 99000), 3).has_value());
}

TEST(TaskKindTest, GroupsFailures) {
  EXPECT_EQ(TaskKind(Task(0, 0)), "cpu-only");
  EXPECT_EQ(TaskKind(Task(1, 500)), "fraction");
  EXPECT_EQ(TaskKind(Task(1, 1000)), "1-gpu");
  EXPECT_EQ(TaskKind(Task(8, 1000)), "8-gpu");
}

TEST(FragClusterTest, RejectsPlacementsThatDoNotFit) {
  const auto nodes = Nodes();
  FragCluster cluster(nodes);
  cluster.Apply({0, {1}}, Task(1, 800));
  EXPECT_EQ(cluster.allocated_milli(), 800);
  EXPECT_EQ(cluster.capacity_milli(), 10000);
  EXPECT_THAT(cluster.Check({0, {1}}, Task(1, 300)).value_or(""), HasSubstr("200 milli-GPUs free"));
  EXPECT_THAT(cluster.Check({0, {0, 0}}, Task(2, 1000)).value_or(""), HasSubstr("twice"));
  EXPECT_THAT(cluster.Check({5, {}}, Task(0, 0)).value_or(""), HasSubstr("no such node"));
  EXPECT_THROW(cluster.Apply({0, {1}}, Task(1, 300)), std::logic_error);
}

TEST(SampleArrivalsTest, SeededAndStopsAtTheTarget) {
  const std::vector<AlibabaTask> tasks = {Task(1, 500), Task(2, 1000), Task(0, 0)};
  const auto first = SampleArrivals(tasks, 10000, 130, 42);
  EXPECT_EQ(first, SampleArrivals(tasks, 10000, 130, 42));
  EXPECT_NE(first, SampleArrivals(tasks, 10000, 130, 7));
  int64_t requested = 0;
  for (size_t i = 0; i + 1 < first.size(); ++i) requested += tasks[first[i]].TotalGpuMilli();
  EXPECT_LT(requested, 13000);  // the last arrival crossed the target
  requested += tasks[first.back()].TotalGpuMilli();
  EXPECT_GE(requested, 13000);
}

class BrokenPlacer : public TaskPlacer {
 public:
  std::string Name() const override { return "broken"; }
  std::optional<TaskPlacement> Place(const FragCluster&, const AlibabaTask&, int64_t) override {
    return TaskPlacement{0, {0}};
  }
};

TEST(FragExperimentTest, RunsPlacersSideBySideAndChecksThem) {
  const auto nodes = Nodes();
  const std::vector<AlibabaTask> tasks = {Task(1, 700), Task(1, 400), Task(1, 1000)};
  BestFitPlacer best_fit;
  const auto experiment = RunFragmentation(nodes, tasks, 130, 42, {&best_fit});
  ASSERT_EQ(experiment.runs.size(), 1u);
  const auto& run = experiment.runs[0];
  EXPECT_EQ(run.placed + run.failed, experiment.arrivals);
  EXPECT_GT(run.AllocatedPercent(), 50);
  EXPECT_LE(run.AllocatedPercent(), 100);
  std::ostringstream table;
  PrintFragTable(table, experiment);
  EXPECT_THAT(table.str(), HasSubstr("best-fit"));
  EXPECT_EQ(FragJson(experiment)["runs"][0]["placer"], "best-fit");
  const auto charts = WriteFragCharts(::testing::TempDir() + "/frag-charts", experiment);
  ASSERT_EQ(charts.size(), 2u);
  EXPECT_TRUE(std::filesystem::exists(charts[1]));
  size_t failed = 0;
  for (const auto& [kind, count] : run.failed_by_kind) failed += count;
  EXPECT_EQ(failed, run.failed);
  BrokenPlacer broken;
  EXPECT_THROW(RunFragmentation(nodes, tasks, 130, 42, {&broken}), std::logic_error);
}

TEST(FragExperimentTest, BestFitOnTheRealTraceWhenPresent) {
  const auto node_file = testing::TraceFileOrEmpty("alibaba-gpu-2023/openb_node_list_gpu_node.csv");
  const auto pod_file = testing::TraceFileOrEmpty("alibaba-gpu-2023/openb_pod_list_default.csv");
  if (node_file.empty() || pod_file.empty()) GTEST_SKIP() << "trace not found under " << TraceDir();
  const auto nodes = LoadAlibabaNodes(node_file);
  const auto tasks = LoadAlibabaTasks(pod_file);
  BestFitPlacer best_fit;
  const auto experiment = RunFragmentation(nodes, tasks, 130, 42, {&best_fit});
  EXPECT_EQ(experiment.capacity_milli, 6212000);
  EXPECT_GT(experiment.runs[0].AllocatedPercent(), 85);
}

}  // namespace
}  // namespace gpupool::replay
