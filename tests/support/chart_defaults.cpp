#include "chart_defaults.h"

#include <yaml-cpp/yaml.h>

#include <stdexcept>

#include "sandbox_process.h"

namespace gpupool::op::testing {

const std::vector<ChartFlag>& ChartTuningFlags() {
  static const std::vector<ChartFlag> flags = {
      {"qps", "--qps"},
      {"burst", "--burst"},
      {"concurrentWrites", "--concurrent-writes"},
      {"statusWritesPerCycle", "--status-writes-per-cycle"},
      {"gatedPodsPerCycle", "--gated-pods-per-cycle"},
      {"waitingPods", "--waiting-pods"},
      {"pausePerPlan", "--pause-per-plan"},
      {"startTimeoutSeconds", "--start-timeout-seconds"},
      {"resyncSeconds", "--resync-seconds"},
      {"logLevel", "--log-level"},
  };
  return flags;
}

std::vector<std::string> ChartDefaultArgs(const std::string& values_yaml) {
  const YAML::Node values = YAML::LoadFile(values_yaml);
  std::vector<std::string> args;
  for (const ChartFlag& chart : ChartTuningFlags()) {
    const YAML::Node value = values[chart.value];
    if (!value || !value.IsScalar())
      throw std::runtime_error(values_yaml + ": " + chart.value + " is missing or not a scalar");
    args.push_back(chart.flag);
    args.push_back(value.as<std::string>());
  }
  return args;
}

std::vector<std::string> ChartDefaultArgs() {
  return ChartDefaultArgs(sandbox::testing::SourcePath("helm/gpupool/values.yaml"));
}

}  // namespace gpupool::op::testing
