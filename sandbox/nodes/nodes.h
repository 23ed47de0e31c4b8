// Simulated nodes from `--nodes`: "COUNTxGPUS:label=value,...;..." or a file
// holding such a spec, or the Alibaba GPU trace's node list (CSV with
// sn,cpu_milli,memory_mib,gpu,model).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpupool::sandbox {

using Json = nlohmann::json;

struct NodeSpec {
  std::string name;
  int64_t gpus = 0;
  int64_t cpu_milli = 64000;
  int64_t memory_mib = 512 * 1024;
  std::vector<std::pair<std::string, std::string>> labels;
};

// Throws std::invalid_argument naming the bad part of the spec.
std::vector<NodeSpec> ParseNodes(const std::string& spec_or_file);
Json NodeObject(const NodeSpec& spec);

}  // namespace gpupool::sandbox
