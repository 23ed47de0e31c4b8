// What `gpupool submit` was asked for, read from its flags, and the
// TrainingJob it makes of it once the project has named the namespace and queue.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cluster_flags.h"
#include "gpupool/common/command.h"

namespace gpupool::cli {

struct VolumeMount {
  std::string claim;  // a PersistentVolumeClaim of the job's namespace
  std::string path;   // where the containers see it
  bool read_only = false;
};

struct SubmitRequest {
  ClusterFlags cluster;
  std::string name;
  std::string project;
  std::string queue;  // empty: the project's only queue
  std::string gpus;   // as written: "1", "0.5"
  int64_t gpu_milli = 0;
  int replicas = 1;
  std::string image;
  std::string workload_class = "Train";
  std::optional<int> priority;
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<VolumeMount> volumes;
  std::string topology_key;  // empty: no topology
  std::string topology_mode = "Preferred";
  std::vector<std::string> command;  // after "--"; empty: the image's entrypoint
  bool wait = false;
  int wait_timeout_seconds = 0;  // 0: no limit
  bool dry_run = false;
};

// Reads the flags; UsageError naming the flag for anything missing or malformed
// (NAME, --project, --gpus and --image are required).
SubmitRequest ParseSubmitFlags(Args args);

// The TrainingJob to create in `ns`, in `queue`.
nlohmann::json BuildTrainingJob(const SubmitRequest& request, const std::string& ns,
                                const std::string& queue);

}  // namespace gpupool::cli
