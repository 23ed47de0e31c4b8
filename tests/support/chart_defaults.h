// The tuning flags the Helm chart gives `gpupool controller` by default, read from
// the chart's values.yaml, so that a benchmark runs the controller as an admin who
// installs the chart does.
#pragma once

#include <string>
#include <vector>

namespace gpupool::op::testing {

// A chart value and the controller flag the chart's Deployment passes it to.
struct ChartFlag {
  const char* value;
  const char* flag;
};

// The flags that set how the controller works (its client's limits, its write
// budgets, its timings and its log level). Those that say where it runs (leader
// election, reservations, listeners, log format) are the caller's to choose.
const std::vector<ChartFlag>& ChartTuningFlags();

// ChartTuningFlags() with their values in `values_yaml` (a path), as arguments:
// {"--qps", "200", ...}. Throws std::runtime_error naming the file and the value
// when one is missing or not a scalar.
std::vector<std::string> ChartDefaultArgs(const std::string& values_yaml);
// The same from this source tree's helm/gpupool/values.yaml.
std::vector<std::string> ChartDefaultArgs();

}  // namespace gpupool::op::testing
