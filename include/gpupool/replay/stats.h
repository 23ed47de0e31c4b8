// Summary statistics for the replay reports: mean and percentiles of waiting
// and completion times, empirical CDFs, and utilization as a step function of
// time averaged over buckets.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace gpupool::replay {

struct Summary {
  size_t count = 0;
  double mean = 0;
  double p50 = 0;
  double p95 = 0;
  double max = 0;
};

// Percentiles use the nearest-rank method; an empty input gives all zeros.
Summary Summarize(std::vector<double> values);

// Nearest-rank percentile (0 < p <= 100) of already sorted values.
double Percentile(const std::vector<double>& sorted, double p);

// Points (value, fraction of values <= value) at most max_points apart in rank,
// always including the largest value.
std::vector<std::pair<double, double>> EmpiricalCdf(std::vector<double> values,
                                                    size_t max_points = 200);

// A quantity that changes at instants (GPUs allocated): records each change
// and integrates it over time.
class StepSeries {
 public:
  // The value is `value` from time `time` on; times must not decrease.
  void Set(double time, double value);

  // Time-average over [from, to); the value before the first Set is 0.
  double Average(double from, double to) const;

  // Averages over consecutive buckets of `width` seconds covering [0, end):
  // (bucket start, average) pairs.
  std::vector<std::pair<double, double>> Buckets(double width, double end) const;

 private:
  std::vector<std::pair<double, double>> steps_;  // (time, value from then on)
};

}  // namespace gpupool::replay
