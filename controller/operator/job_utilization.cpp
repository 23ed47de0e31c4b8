#include "gpupool/operator/job_utilization.h"

#include <algorithm>

namespace gpupool::op {

std::optional<JobUtilization> UtilizationOf(const utilization::Readings& readings,
                                            const std::vector<const PodView*>& pods) {
  JobUtilization result;
  result.complete = true;
  double sum = 0;
  std::size_t count = 0;
  for (const PodView* pod : pods) {
    if (!pod || pod->phase != PodPhase::kRunning) continue;
    const auto* indexes = readings.OfPod(pod->ns, pod->name);
    if (!indexes || indexes->empty()) {
      result.complete = false;
      continue;
    }
    for (std::size_t index : *indexes) {
      const double percent = readings.gpus[index].percent;
      sum += percent;
      result.max_percent = std::max(result.max_percent, percent);
      ++count;
    }
  }
  if (count == 0) return std::nullopt;
  result.mean_percent = sum / static_cast<double>(count);
  return result;
}

}  // namespace gpupool::op
