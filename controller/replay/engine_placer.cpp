#include "engine_placer.h"

#include <map>
#include <stdexcept>
#include <tuple>

namespace gpupool::replay {
namespace {

constexpr char kOpenbQueue[] = "openb";
constexpr char kProject[] = "tasks";
constexpr int64_t kBytesPerMib = int64_t{1} << 20;

engine::ReplicaShape ShapeOf(const AlibabaTask& task) {
  return {task.TotalGpuMilli(), task.cpu_milli, task.memory_mib * kBytesPerMib};
}

std::vector<std::string> Models(const std::string& spec) {
  std::vector<std::string> models;
  size_t begin = 0;
  while (!spec.empty() && begin <= spec.size()) {
    const size_t end = std::min(spec.find('|', begin), spec.size());
    models.push_back(spec.substr(begin, end - begin));
    begin = end + 1;
  }
  return models;
}

engine::Snapshot OpenbSnapshot(const std::vector<AlibabaNode>& nodes) {
  engine::Snapshot snapshot;
  int64_t capacity = 0;
  for (const auto& spec : nodes) {
    engine::Node node;
    node.name = spec.name;
    node.gpu_model = spec.model;
    node.gpus = spec.gpus;
    node.cpu_milli = spec.cpu_milli;
    node.memory_bytes = spec.memory_mib * kBytesPerMib;
    capacity += int64_t{spec.gpus} * engine::kMilliPerGpu;
    snapshot.nodes.push_back(std::move(node));
  }
  engine::Queue queue;
  queue.name = kOpenbQueue;
  queue.sharing = engine::Sharing::kGuaranteed;
  snapshot.queues.push_back(queue);
  engine::ProjectQuota quota;
  quota.queue = kOpenbQueue;
  quota.gpu = capacity;
  snapshot.projects.push_back({kProject, 0, {quota}});
  return snapshot;
}

engine::Options PlacerOptions(const std::vector<AlibabaTask>& expected, engine::Packing packing) {
  engine::Options options;
  options.packing = packing;
  options.expected_workload = WorkloadShapes(expected);
  // Nothing waits in this experiment, so nothing may hold room for later.
  options.reserve_for_blocked_jobs = false;
  return options;
}

}  // namespace

std::vector<engine::WorkloadShape> WorkloadShapes(const std::vector<AlibabaTask>& tasks) {
  std::map<std::tuple<int64_t, int64_t, int64_t>, double> counts;
  for (const auto& task : tasks) {
    if (task.num_gpu == 0) continue;  // CPU-only tasks do not use GPU pieces
    ++counts[{task.TotalGpuMilli(), task.cpu_milli, task.memory_mib}];
  }
  std::vector<engine::WorkloadShape> shapes;
  for (const auto& [key, count] : counts) {
    const auto& [gpu, cpu, memory] = key;
    shapes.push_back({{gpu, cpu, memory * kBytesPerMib}, count});
  }
  return shapes;
}

EnginePlacer::EnginePlacer(const std::vector<AlibabaNode>& nodes,
                           const std::vector<AlibabaTask>& expected, engine::Packing packing,
                           std::string name)
    : name_(std::move(name)), engine_(OpenbSnapshot(nodes), PlacerOptions(expected, packing)) {
  for (size_t i = 0; i < nodes.size(); ++i) node_index_[nodes[i].name] = static_cast<int>(i);
}

std::optional<TaskPlacement> EnginePlacer::Place(const FragCluster&, const AlibabaTask& task,
                                                 int64_t sequence) {
  engine::PendingJob job;
  job.name = std::to_string(sequence);
  job.queue = kOpenbQueue;
  job.project = kProject;
  job.shape = ShapeOf(task);
  job.gpu_models = Models(task.gpu_spec);
  job.arrival_time = sequence;
  engine_.SetNow(sequence);
  engine_.AddPending(job);
  const engine::Decisions decisions = engine_.Decide();
  if (!decisions.preemptions.empty()) {
    throw std::logic_error("engine preempted work in the fragmentation experiment");
  }
  if (decisions.admissions.empty()) {
    engine_.Finish(job.name);  // withdrawn: in this experiment a task never waits
    return std::nullopt;
  }
  const engine::Admission& admission = decisions.admissions.front();
  if (admission.job != job.name || admission.replicas.size() != 1) {
    throw std::logic_error("engine admitted \"" + admission.job + "\" for task " + job.name);
  }
  const auto node = node_index_.find(admission.replicas[0].node);
  if (node == node_index_.end()) {
    throw std::logic_error("engine placed task " + job.name + " on unknown node \"" +
                           admission.replicas[0].node + "\"");
  }
  return TaskPlacement{node->second, admission.replicas[0].devices};
}

}  // namespace gpupool::replay
