// Which running jobs are shown over their project's quota: one definition for the
// job's status and for the victim order, so the two never disagree.
#pragma once

#include <vector>

#include "state.h"

namespace gpupool::engine::internal {

// Marks the running jobs of every slot that changed since the last marking (every
// slot when ClusterState::standing_changes says so) within or over the project's
// quota (JobState::over_quota), and keeps ClusterState::over_gpu. In each project
// and queue, the running jobs are ordered dearest to stop first by the victim order
// (InProjectStopKey); the longest run of them, from the dearest, whose GPUs fit in
// the quota is within it, and every later one is over it. Work that is never
// preempted comes first and is shown within. So the jobs shown over quota are
// exactly those the victim order takes first, and a project at or below its quota
// has none. Returns the running jobs whose standing changed.
std::vector<int> MarkQuotaStanding(ClusterState& state);

}  // namespace gpupool::engine::internal
