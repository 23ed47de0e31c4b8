#include "shapes.h"

#include <cstdint>

#include "state.h"

namespace gpupool::engine::internal {
namespace {

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

bool PlainConstraint(const JobState& job) {
  return job.node_selector->empty() && job.gpu_models.empty() &&
         job.topology.mode != TopologyMode::kRequired;
}

std::string ConstraintKey(const JobState& job) {
  std::string key;
  Put(key, job.queue);
  Put(key, DevicesPerReplica(job));
  for (const auto& [k, v] : *job.node_selector) {
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

template <typename Key, typename Table>
int Intern(Table& table, Key key, int& count) {
  auto [it, added] = table.try_emplace(std::move(key), count);
  if (added) ++count;
  return it->second;
}

}  // namespace

std::size_t ShapeTable::FieldsHash::operator()(const Fields& f) const {
  std::uint64_t h = 1469598103934665603ull;
  for (std::int64_t v : {f.a, f.b, f.c, f.d, f.e}) {
    h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ull;
    h ^= h >> 29;
  }
  return static_cast<std::size_t>(h);
}

int ShapeTable::TopologyKeyNumber(const std::string& key) {
  auto known = topology_keys_.find(key);
  if (known == topology_keys_.end()) {
    int next = static_cast<int>(topology_keys_.size());
    known = topology_keys_.emplace(key, next).first;
  }
  return known->second;
}

int ShapeTable::ConstraintOf(const JobState& job) {
  if (job.constraint_id >= 0) return job.constraint_id;
  if (PlainConstraint(job)) {
    std::uint64_t key = static_cast<std::uint64_t>(static_cast<std::uint32_t>(job.queue)) << 32 |
                        static_cast<std::uint32_t>(DevicesPerReplica(job));
    job.constraint_id = Intern(plain_constraints_, key, constraint_count_);
  } else if (job.gpu_models.empty()) {
    std::int64_t topology = -1;
    if (job.topology.mode == TopologyMode::kRequired)
      topology = TopologyKeyNumber(job.topology.key);
    Fields key{job.queue, DevicesPerReplica(job),
               static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(job.node_selector)),
               topology, 0};
    job.constraint_id = Intern(selector_constraints_, key, constraint_count_);
  } else {
    job.constraint_id = Intern(constraints_, ConstraintKey(job), constraint_count_);
  }
  return job.constraint_id;
}

int ShapeTable::ShapeOf(const JobState& job) {
  if (job.shape_id >= 0) return job.shape_id;
  const int constraint = ConstraintOf(job);
  // The topology mode, and the key's number above it (none: 0).
  std::int64_t topology = static_cast<std::int64_t>(job.topology.mode);
  if (!job.topology.key.empty())
    topology |= std::int64_t{TopologyKeyNumber(job.topology.key) + 1} << 8;
  Fields key{constraint, job.shape.gpu_milli, job.shape.cpu_milli, job.shape.memory_bytes,
             topology};
  job.shape_id = Intern(shapes_, key, shape_count_);
  return job.shape_id;
}

int ShapeTable::GroupOf(const JobState& job) {
  if (job.group_id >= 0) return job.group_id;
  Fields key{ShapeOf(job), job.replicas, job.min_replicas,
             static_cast<std::int64_t>(job.workload_class), 0};
  int count = static_cast<int>(groups_.size());
  job.group_id = Intern(groups_, key, count);
  return job.group_id;
}

}  // namespace gpupool::engine::internal
