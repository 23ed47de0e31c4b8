#include "job_utilization.h"

#include <algorithm>

namespace gpupool::op {

std::optional<JobUtilization> UtilizationOf(const utilization::Readings& readings,
                                            const std::vector<const PodView*>& pods) {
  JobUtilization result;
  result.complete = true;
  double sum = 0;
  std::size_t count = 0;
  auto add = [&](double percent) {
    sum += percent;
    result.max_percent = std::max(result.max_percent, percent);
    ++count;
  };
  for (const PodView* pod : pods) {
    if (!pod || pod->phase != PodPhase::kRunning) continue;
    const auto* indexes = readings.OfPod(pod->ns, pod->name);
    if (indexes && !indexes->empty()) {
      for (std::size_t index : *indexes) add(readings.gpus[index].percent);
      continue;
    }
    // The device plugin gave a shared device to its reservation pod, so the exporter
    // names that pod: a fraction reads its device's utilization, its neighbours' included.
    const utilization::GpuReading* shared =
        pod->gpu_device.empty() ? nullptr : readings.OfDevice(pod->node, pod->gpu_device);
    if (shared) {
      add(shared->percent);
    } else {
      result.complete = false;
    }
  }
  if (count == 0) return std::nullopt;
  result.mean_percent = sum / static_cast<double>(count);
  return result;
}

}  // namespace gpupool::op
