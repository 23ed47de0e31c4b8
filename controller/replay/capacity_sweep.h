// The capacity sweep of the Philly replay: the same trace over a range of cluster
// sizes, and per policy the GPUs it needs to reach a given mean wait.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace gpupool::replay {

// One policy's mean wait (hours, all tenants) at each swept size.
struct SweepSeries {
  std::string label;
  std::vector<double> mean_wait_hours;  // One per size of SweepResult::gpus.
  std::vector<double> lost_percent;     // GPU-hours lost / the trace's work, per size.
};

struct SweepResult {
  std::vector<int> gpus;  // Cluster sizes, ascending.
  std::vector<SweepSeries> series;
  std::vector<double> wait_targets_hours;
};

// The fewest GPUs at which the mean wait is at most `target_hours`: the first swept
// size that reaches it, interpolated linearly with the size before it. Empty when
// no swept size reaches it; the smallest size when that one already does.
std::optional<double> GpusForMeanWait(const std::vector<int>& gpus,
                                      const std::vector<double>& mean_wait_hours,
                                      double target_hours);

void PrintSweep(std::ostream& out, const SweepResult& sweep);
nlohmann::json SweepJson(const SweepResult& sweep);
// capacity-sweep.svg: mean wait against GPUs, one line per policy; returns its path.
std::string WriteSweepChart(const std::string& dir, const SweepResult& sweep);

}  // namespace gpupool::replay
