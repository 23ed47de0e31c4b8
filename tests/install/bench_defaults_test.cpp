// The scale benchmarks run the controller with the chart's defaults: every flag
// the chart's Deployment passes either reaches the benchmarks' controller with
// the same value (tests/support/chart_defaults.h) or says where the controller
// runs, which a benchmark chooses itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "chart_defaults.h"
#include "install_files.h"

namespace gpupool::install::testing {
namespace {

using op::testing::ChartDefaultArgs;
using ::testing::HasSubstr;

// Flags about where the controller runs: its lease, its reservations' namespace and
// image, its listeners, its log format, where GPU metrics come from.
const std::set<std::string> kWhereItRuns = {"--leader-elect",
                                            "--leader-elect-namespace",
                                            "--leader-elect-name",
                                            "--lease-duration-seconds",
                                            "--reservation-namespace",
                                            "--reservation-image",
                                            "--skip-priority-classes",
                                            "--log-format",
                                            "--metrics-bind-address",
                                            "--metrics-secure",
                                            "--metrics-cert-dir",
                                            "--health-probe-bind-address",
                                            "--webhook-bind-address",
                                            "--webhook-host",
                                            "--webhook-secret",
                                            "--webhook-namespace",
                                            "--webhook-configuration",
                                            "--webhook-cert-dir",
                                            "--webhook-record-writer",
                                            "--gpu-metrics-url",
                                            "--gpu-metrics-interval-seconds",
                                            "--gpu-metrics-timeout-seconds"};

// The Deployment's flags, each with its value ("" for a switch).
std::map<std::string, std::string> DeploymentFlags() {
  const YAML::Node deployment = FindObject(LoadManifests(), "Deployment");
  std::vector<std::string> args;
  for (const auto& arg : deployment["spec"]["template"]["spec"]["containers"][0]["args"])
    args.push_back(arg.as<std::string>());
  std::map<std::string, std::string> flags;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    const bool has_value = i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0;
    flags[flag] = has_value ? args[++i] : "";
  }
  return flags;
}

TEST(BenchDefaults, TheBenchmarksControllerGetsTheDeploymentsTuningFlagsAndValues) {
  const auto deployment = DeploymentFlags();
  ASSERT_FALSE(deployment.empty());
  const std::vector<std::string> bench = ChartDefaultArgs();
  std::set<std::string> given;
  for (std::size_t i = 0; i + 1 < bench.size(); i += 2) {
    given.insert(bench[i]);
    const auto found = deployment.find(bench[i]);
    ASSERT_NE(found, deployment.end()) << "the Deployment does not pass " << bench[i];
    EXPECT_EQ(bench[i + 1], found->second) << bench[i];
  }
  for (const auto& [flag, value] : deployment) {
    EXPECT_TRUE(given.count(flag) || kWhereItRuns.count(flag))
        << "the chart passes " << flag << " " << value
        << ", which the benchmarks' controller does not get: add it to ChartTuningFlags "
           "(tests/support/chart_defaults.cpp), or here if it only says where the "
           "controller runs";
  }
}

TEST(BenchDefaults, AValuesFileWithoutATuningValueIsRefusedNamingIt) {
  const std::string path = ::testing::TempDir() + "bench-defaults-values.yaml";
  std::ofstream(path) << "qps: 200\nburst: [400]\n";
  try {
    ChartDefaultArgs(path);
    FAIL() << "a values file whose burst is a list was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("burst is missing or not a scalar"));
    EXPECT_THAT(error.what(), HasSubstr(path));
  }
  std::ofstream(path) << "qps: 200\n";
  EXPECT_THROW(ChartDefaultArgs(path), std::runtime_error);
}

}  // namespace
}  // namespace gpupool::install::testing
