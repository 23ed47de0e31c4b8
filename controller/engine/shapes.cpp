#include "shapes.h"

#include "state.h"

namespace gpupool::engine::internal {
namespace {

int Intern(std::unordered_map<std::string, int>& table, std::string key) {
  auto [it, added] = table.emplace(std::move(key), static_cast<int>(table.size()));
  return it->second;
}

std::string ConstraintKey(const JobState& job) {
  MilliGpu g = job.shape.gpu_milli;
  std::string key = std::to_string(job.queue) + "|" +
                    std::to_string(g >= kMilliPerGpu ? g / kMilliPerGpu : (g > 0 ? 1 : 0));
  for (const auto& [k, v] : job.node_selector) key += "|" + k + "=" + v;
  key += "|";
  for (const std::string& model : job.gpu_models) key += model + ",";
  if (job.topology.mode == TopologyMode::kRequired) key += "|" + job.topology.key;
  return key;
}

}  // namespace

int ShapeTable::ConstraintOf(const JobState& job) {
  if (job.constraint_id < 0) {
    job.constraint_id = Intern(constraints_, ConstraintKey(job));
  }
  return job.constraint_id;
}

int ShapeTable::ShapeOf(const JobState& job) {
  if (job.shape_id < 0) {
    std::string key =
        std::to_string(ConstraintOf(job)) + "#" + std::to_string(job.shape.gpu_milli) + "," +
        std::to_string(job.shape.cpu_milli) + "," + std::to_string(job.shape.memory_bytes) + "t" +
        std::to_string(static_cast<int>(job.topology.mode)) + job.topology.key;
    job.shape_id = Intern(shapes_, std::move(key));
  }
  return job.shape_id;
}

int ShapeTable::GroupOf(const JobState& job) {
  if (job.group_id < 0) {
    std::string key = std::to_string(ShapeOf(job)) + "/" + std::to_string(job.replicas) + "/" +
                      std::to_string(job.min_replicas) + "/" +
                      std::to_string(static_cast<int>(job.workload_class));
    job.group_id = Intern(groups_, std::move(key));
  }
  return job.group_id;
}

}  // namespace gpupool::engine::internal
