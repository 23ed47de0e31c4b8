// The capacity sweep's arithmetic: GPUs needed for a mean wait, the ratio between
// policies, and the chart.
#include "replay/capacity_sweep.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

namespace gpupool::replay {
namespace {

using ::testing::HasSubstr;

TEST(CapacitySweepTest, InterpolatesTheGpusForAMeanWait) {
  const std::vector<int> gpus = {400, 500, 600};
  EXPECT_DOUBLE_EQ(*GpusForMeanWait(gpus, {10, 4, 1}, 4), 500);
  EXPECT_DOUBLE_EQ(*GpusForMeanWait(gpus, {10, 4, 1}, 2.5), 550);  // Halfway from 4 h to 1 h.
  EXPECT_DOUBLE_EQ(*GpusForMeanWait(gpus, {10, 4, 1}, 20), 400);   // The smallest reaches it.
  EXPECT_FALSE(GpusForMeanWait(gpus, {10, 4, 1}, 0.5).has_value());
}

SweepResult TwoPolicies() {
  SweepResult sweep;
  sweep.gpus = {400, 600, 800, 1000};
  sweep.wait_targets_hours = {1};
  sweep.series = {{"static", {40, 10, 3, 1}, {0, 0, 0, 0}},
                  {"guaranteed", {8, 1, 0.5, 0.2}, {3, 2, 1, 0.5}}};
  return sweep;
}

TEST(CapacitySweepTest, ReportsTheRatioBetweenPolicies) {
  std::ostringstream out;
  PrintSweep(out, TwoPolicies());
  EXPECT_THAT(out.str(), HasSubstr("GPUs for a mean wait of 1 h:  static 1000  guaranteed 600"));
  EXPECT_THAT(out.str(), HasSubstr("ratio static / guaranteed: 1.67x"));
  const auto json = SweepJson(TwoPolicies());
  EXPECT_DOUBLE_EQ(json["series"][1]["gpus_for_mean_wait_hours"]["1.000000"].get<double>(), 600);
}

TEST(CapacitySweepTest, SaysWhenNoSweptSizeIsEnough) {
  SweepResult sweep = TwoPolicies();
  sweep.series[0].mean_wait_hours = {40, 30, 20, 10};
  std::ostringstream out;
  PrintSweep(out, sweep);
  EXPECT_THAT(out.str(), HasSubstr("static > 1000"));
  EXPECT_THAT(out.str(), ::testing::Not(HasSubstr("ratio")));
}

TEST(CapacitySweepTest, DrawsOneLinePerPolicy) {
  const auto dir = std::filesystem::temp_directory_path() / "gpupool-sweep-test";
  const std::string path = WriteSweepChart(dir.string(), TwoPolicies());
  EXPECT_TRUE(std::filesystem::exists(path));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpupool::replay
