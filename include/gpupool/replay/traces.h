// Loaders for the two real traces the replay knows: Microsoft Philly (jobs of
// virtual clusters over time) and Alibaba GPU 2023 "openb" (a node list and
// fractional-GPU tasks). Rows are validated as they are read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpupool::replay {

// The trace folder: $GPUPOOL_TRACE_DIR, else ../shared/traces beside the checkout.
std::string TraceDir();

struct PhillyJob {
  int64_t id = 0;       // the row's line number in the file, stable across runs
  double arrival = 0;   // seconds since the earliest arrival in the trace
  double duration = 0;  // run time in seconds when never interrupted
  int gpus = 0;         // GPUs requested, all at once (a gang)
  std::string tenant;   // the Philly virtual cluster
};

// Reads philly.csv (timestamp,duration,num_gpus,gpu_time,cluster), sorted by
// arrival then line; throws TraceError naming file, line and column.
std::vector<PhillyJob> LoadPhillyTrace(const std::string& path);

struct AlibabaNode {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpus = 0;
  std::string model;
};

struct AlibabaTask {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int num_gpu = 0;       // 0 (CPU only) .. 8
  int gpu_milli = 0;     // per GPU: < 1000 only when num_gpu == 1 (a shared GPU)
  std::string gpu_spec;  // allowed models separated by '|'; empty = any

  // Milli-GPUs the task asks for in total.
  int64_t TotalGpuMilli() const { return int64_t{num_gpu} * gpu_milli; }
};

// Reads openb_node_list_*.csv (sn,cpu_milli,memory_mib,gpu,model).
std::vector<AlibabaNode> LoadAlibabaNodes(const std::string& path);

// Reads openb_pod_list_*.csv (name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,...]).
std::vector<AlibabaTask> LoadAlibabaTasks(const std::string& path);

}  // namespace gpupool::replay
