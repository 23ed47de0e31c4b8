// A job's GPU utilization from the DCGM exporter's readings of its pods: the
// cycle writes it to the job's status and judges idle Build sessions by it,
// and the metrics sum it per project.
#pragma once

#include <optional>
#include <vector>

#include "gpupool/operator/pod_view.h"
#include "gpupool/utilization/readings.h"

namespace gpupool::op {

struct JobUtilization {
  double mean_percent = 0;  // Over every reading of its running pods.
  double max_percent = 0;
  bool complete = false;  // Every running pod has at least one reading.
};

// nullopt when none of the running pods (non-null, phase Running) has a reading.
std::optional<JobUtilization> UtilizationOf(const utilization::Readings& readings,
                                            const std::vector<const PodView*>& pods);

}  // namespace gpupool::op
