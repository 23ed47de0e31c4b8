// The pod of one replica (docs/operator.md, "The pod contract"), and the patch
// that releases it to its node.
#pragma once

#include "cycle_state.h"

namespace gpupool::op::internal {

// "<job>-<replica>": the name of a replica's pod.
std::string PodName(const JobRecord& job, int replica);
// Whether `pod_name` is the name PodName gives replica `replica` of the job
// named `job` (compared in place: the index asks it of every pod each cycle).
bool IsReplicaPodName(const std::string& pod_name, const std::string& job, std::int32_t replica);
// A JSON pointer token: "~" and "/" escaped (RFC 6901).
std::string PointerToken(std::string_view key);
// The pod of a replica waiting for admission: held by the admission gate.
Json BuildPod(const CycleState& state, const JobRecord& job, int replica);
// The pod of a replica whose admission is recorded and whose node has room: as
// BuildPod's once ReleasePatch is applied (no gate, pinned to `placed.node`).
// `shared_device`: a fraction's device, as its reservation pod reports it.
Json BuildReleasedPod(const CycleState& state, const JobRecord& job,
                      const api::ReplicaPlacement& placed, const std::string& shared_device);
// Opens the admission gate of `pod`, if it is still that pod and that gate.
Json UngatePatch(const PodView& pod);
// Opens the admission gate of `pod` and pins it to `node`; a fraction also learns
// its device and share.
Json ReleasePatch(const JobRecord& job, const PodView& pod, const api::ReplicaPlacement& placed,
                  const std::string& shared_device);
Json BuildGangService(const JobRecord& job);

}  // namespace gpupool::op::internal
