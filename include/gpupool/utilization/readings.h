// GPU utilization readings as the NVIDIA DCGM exporter reports them: one
// DCGM_FI_DEV_GPU_UTIL sample per device (and per pod using it, when the
// exporter maps devices to pods). The operator reads them as an input of its
// cycle, the way it reads the informers' caches.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpupool::utilization {

inline constexpr char kGpuUtilMetric[] = "DCGM_FI_DEV_GPU_UTIL";

struct GpuReading {
  std::string node;                // Hostname label.
  std::string gpu;                 // Device index label `gpu`.
  std::string uuid;                // UUID label.
  std::string ns, pod, container;  // The pod using the device; empty when none.
  double percent = 0;              // 0..100.
};

struct Readings {
  // The last scrape succeeded: `gpus` is what the exporter said then.
  bool available = false;
  std::string problem;       // Why not, when unavailable.
  std::int64_t read_at = 0;  // Wall-clock seconds of the scrape; 0: none yet.
  std::vector<GpuReading> gpus;
  std::size_t malformed_lines = 0;  // Skipped, the page's other lines still count.
  std::string first_problem;        // Of the first skipped line.
  // "namespace/pod" -> indexes into `gpus`.
  std::unordered_map<std::string, std::vector<std::size_t>> by_pod;
  // "node/gpu" and "node/UUID" -> the index of the device's first reading.
  std::unordered_map<std::string, std::size_t> by_device;

  // Adds a reading and indexes it by its pod and its device.
  void Add(GpuReading reading);
  const std::vector<std::size_t>* OfPod(const std::string& ns, const std::string& pod) const;
  // The reading of a node's device named by index or UUID; nullptr when none.
  const GpuReading* OfDevice(const std::string& node, const std::string& device) const;
};

using SharedReadings = std::shared_ptr<const Readings>;

}  // namespace gpupool::utilization
