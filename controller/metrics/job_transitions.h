#pragma once

#include "gpupool/metrics/cycle_metrics.h"

namespace gpupool::metrics::internal {

// Fills `jobs_by_phase`, `admissions`, `preemptions` and `queue_waits`.
void AddJobTransitions(const op::ClusterView& view, const op::Plan& plan,
                       const op::WriteStats& written, CycleMetrics& metrics);

}  // namespace gpupool::metrics::internal
