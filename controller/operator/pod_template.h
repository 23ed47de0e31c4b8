// The pod of one replica (docs/operator.md, "The pod contract"), and the patch
// that releases it to its node.
#pragma once

#include "cycle_state.h"

namespace gpupool::op::internal {

std::string PodName(const JobRecord& job, int replica);
Json BuildPod(const CycleState& state, const JobRecord& job, int replica);
// Opens the admission gate of `pod` and pins it to `node`; a fraction also learns
// its device and share.
Json ReleasePatch(const JobRecord& job, const PodView& pod, const api::ReplicaPlacement& placed);
Json BuildGangService(const JobRecord& job);

}  // namespace gpupool::op::internal
