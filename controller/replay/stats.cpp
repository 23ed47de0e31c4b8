#include "gpupool/replay/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace gpupool::replay {

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  const size_t index = static_cast<size_t>(std::max(1.0, rank)) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

Summary Summarize(std::vector<double> values) {
  Summary summary;
  if (values.empty()) return summary;
  std::sort(values.begin(), values.end());
  summary.count = values.size();
  summary.mean = std::accumulate(values.begin(), values.end(), 0.0) / values.size();
  summary.p50 = Percentile(values, 50);
  summary.p95 = Percentile(values, 95);
  summary.max = values.back();
  return summary;
}

std::vector<std::pair<double, double>> EmpiricalCdf(std::vector<double> values, size_t max_points) {
  std::vector<std::pair<double, double>> points;
  if (values.empty() || max_points == 0) return points;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  const size_t stride = std::max<size_t>(1, n / max_points);
  for (size_t i = stride - 1; i < n; i += stride) {
    points.emplace_back(values[i], static_cast<double>(i + 1) / n);
  }
  if (points.back().second < 1.0) points.emplace_back(values.back(), 1.0);
  return points;
}

void StepSeries::Set(double time, double value) {
  if (!steps_.empty() && time < steps_.back().first) {
    throw std::logic_error("StepSeries::Set: time went backwards");
  }
  if (!steps_.empty() && steps_.back().first == time) {
    steps_.back().second = value;
  } else {
    steps_.emplace_back(time, value);
  }
}

double StepSeries::Average(double from, double to) const {
  if (to <= from) return 0;
  double area = 0;
  for (size_t i = 0; i < steps_.size(); ++i) {
    const double start = std::max(from, steps_[i].first);
    const double end = std::min(to, i + 1 < steps_.size() ? steps_[i + 1].first : to);
    if (end > start) area += (end - start) * steps_[i].second;
  }
  return area / (to - from);
}

std::vector<std::pair<double, double>> StepSeries::Buckets(double width, double end) const {
  std::vector<std::pair<double, double>> buckets;
  if (width <= 0) return buckets;
  // One pass over the steps: each bucket integrates the steps that overlap it.
  size_t i = 0;
  for (double start = 0; start < end; start += width) {
    const double stop = std::min(end, start + width);
    double area = 0;
    while (i + 1 < steps_.size() && steps_[i + 1].first <= start) ++i;
    for (size_t j = i; j < steps_.size() && steps_[j].first < stop; ++j) {
      const double from = std::max(start, steps_[j].first);
      const double to = std::min(stop, j + 1 < steps_.size() ? steps_[j + 1].first : stop);
      if (to > from) area += (to - from) * steps_[j].second;
    }
    buckets.emplace_back(start, area / (stop - start));
  }
  return buckets;
}

}  // namespace gpupool::replay
