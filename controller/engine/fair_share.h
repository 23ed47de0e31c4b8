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

}  // namespace gpupool::engine::internal
