// Deserved shares by water-filling, and the dominant share used to order projects.
#pragma once

#include <vector>

#include "gpupool/engine/snapshot.h"

namespace gpupool::engine::internal {

struct ShareRequest {
  MilliGpu quota = 0;
  MilliGpu limit = 0;   // >= quota.
  MilliGpu demand = 0;  // Allocated plus pending.
  std::int64_t weight = 1;
};

// Each project deserves its quota plus a share of the idle capacity (capacity not
// needed by anyone's guarantee) in proportion to its weight, never more than it
// asks for nor its limit. Shares freed by capped projects flow to the others.
std::vector<MilliGpu> WaterFill(MilliGpu capacity, const std::vector<ShareRequest>& requests);

// A group of requests (a department of projects) with its own quota, limit and
// weight at the level above.
struct ShareGroup {
  MilliGpu quota = 0;
  MilliGpu limit = -1;  // -1: none.
  std::int64_t weight = 1;
};

// Two levels: groups, and requests outside any group, share the capacity first;
// then each group's deserved share is water-filled among its own requests, so idle
// GPUs go first to the projects of the same group. `group_of[i]` is request i's
// group, or -1.
std::vector<MilliGpu> WaterFillNested(MilliGpu capacity, const std::vector<ShareRequest>& requests,
                                      const std::vector<int>& group_of,
                                      const std::vector<ShareGroup>& groups);

}  // namespace gpupool::engine::internal
