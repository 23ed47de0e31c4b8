#include "shapes.h"

#include <cstdint>

#include "state.h"

namespace gpupool::engine::internal {
namespace {

int Intern(std::unordered_map<std::string, int>& table, std::string key) {
  auto [it, added] = table.emplace(std::move(key), static_cast<int>(table.size()));
  return it->second;
}

// Keys are raw bytes: fixed-size integers, then strings ended by a NUL (label keys,
// values and model names hold none), so distinct fields never run together.
template <typename T>
void Put(std::string& key, T value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void Put(std::string& key, const std::string& text) {
  key += text;
  key += '\0';
}

std::string ConstraintKey(const JobState& job) {
  MilliGpu g = job.shape.gpu_milli;
  std::string key;
  Put(key, job.queue);
  Put(key, static_cast<std::int32_t>(g >= kMilliPerGpu ? g / kMilliPerGpu : (g > 0 ? 1 : 0)));
  for (const auto& [k, v] : job.node_selector) {
    Put(key, k);
    Put(key, v);
  }
  Put(key, '\1');
  for (const std::string& model : job.gpu_models) Put(key, model);
  if (job.topology.mode == TopologyMode::kRequired) {
    Put(key, '\2');
    Put(key, job.topology.key);
  }
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
    std::string key;
    Put(key, ConstraintOf(job));
    Put(key, job.shape.gpu_milli);
    Put(key, job.shape.cpu_milli);
    Put(key, job.shape.memory_bytes);
    Put(key, static_cast<std::uint8_t>(job.topology.mode));
    Put(key, job.topology.key);
    job.shape_id = Intern(shapes_, std::move(key));
  }
  return job.shape_id;
}

int ShapeTable::GroupOf(const JobState& job) {
  if (job.group_id < 0) {
    std::string key;
    Put(key, ShapeOf(job));
    Put(key, job.replicas);
    Put(key, job.min_replicas);
    Put(key, static_cast<std::uint8_t>(job.workload_class));
    job.group_id = Intern(groups_, std::move(key));
  }
  return job.group_id;
}

}  // namespace gpupool::engine::internal
