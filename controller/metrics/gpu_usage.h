#pragma once

#include "gpupool/metrics/cycle_metrics.h"

namespace gpupool::metrics::internal {

// Fills `projects`, `departments` and `queues`.
void AddGpuUsage(const op::ClusterView& view, const op::Plan& plan, CycleMetrics& metrics);
// Fills `utilization` from the cycle's GPU readings (nothing without them).
void AddUtilization(const op::ClusterView& view, CycleMetrics& metrics);

}  // namespace gpupool::metrics::internal
