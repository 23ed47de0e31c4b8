// The simulated NVIDIA DCGM exporter: the sandbox's GPUs as the exporter's
// Prometheus text (DCGM_FI_DEV_GPU_UTIL, with the exporter's labels and its
// pod mapping), served without authentication like a node's exporter.
// A running pod's utilization is its annotation sandbox.gpupool.dev/gpu-utilization
// (percent, default 100); a device's pods are those the pods' gpupool.dev/gpu-device
// annotation names, else the node's GPU pods in name order take the free devices.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sandbox/cluster.h"

namespace gpupool::sandbox {

inline constexpr char kDcgmMetricsPath[] = "/dcgm-exporter/metrics";
inline constexpr char kUtilizationAnnotation[] = "sandbox.gpupool.dev/gpu-utilization";

// The exporter's page for these nodes and pods (JSON objects as stored).
std::string DcgmExposition(const std::vector<nlohmann::json>& nodes,
                           const std::vector<nlohmann::json>& pods);

// The page for the cluster as it is now.
std::string DcgmExposition(Cluster& cluster);

}  // namespace gpupool::sandbox
