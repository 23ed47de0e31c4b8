// Realistic pod JSON for the kube benchmarks: the shape a gpupool training pod
// has on a real API server (labels, owner reference, one GPU container with
// env and resources, tolerations, node affinity, status with conditions).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gpupool/api/pod.h"

namespace gpupool::kube::bench {

nlohmann::json MakePod(int index, int resource_version);
// A watch body of `count` MODIFIED/ADDED events, one per line.
std::string MakeWatchStream(int count, int distinct_pods);
// The api module's typed Pod view (every field gpupool reads), from JSON.
api::Pod DecodeApiPod(const nlohmann::json& object);

}  // namespace gpupool::kube::bench
