#include "fragmentation.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <random>
#include <stdexcept>
#include <string_view>

namespace gpupool::replay {
namespace {

bool ModelAllowed(const std::string& spec, const std::string& model) {
  if (spec.empty()) return true;
  size_t begin = 0;
  while (begin <= spec.size()) {
    const size_t end = std::min(spec.find('|', begin), spec.size());
    if (std::string_view(spec).substr(begin, end - begin) == model) return true;
    begin = end + 1;
  }
  return false;
}

}  // namespace

FragCluster::FragCluster(const std::vector<AlibabaNode>& nodes) {
  for (const auto& spec : nodes) {
    nodes_.push_back({&spec, spec.cpu_milli, spec.memory_mib, std::vector<int>(spec.gpus, 1000)});
    capacity_milli_ += int64_t{spec.gpus} * 1000;
  }
}

bool FragCluster::NodeAdmits(const FragNode& node, const AlibabaTask& task) {
  return node.cpu_free >= task.cpu_milli && node.memory_free >= task.memory_mib &&
         int(node.gpu_free.size()) >= task.num_gpu &&
         (task.num_gpu == 0 || ModelAllowed(task.gpu_spec, node.spec->model));
}

std::optional<std::string> FragCluster::Check(const TaskPlacement& placement,
                                              const AlibabaTask& task) const {
  if (placement.node < 0 || placement.node >= int(nodes_.size())) return "no such node";
  const FragNode& node = nodes_[placement.node];
  if (!NodeAdmits(node, task)) return "node " + node.spec->name + " lacks cpu, memory or model";
  if (int(placement.devices.size()) != task.num_gpu) return "wrong number of devices";
  std::vector<int> seen;
  for (int device : placement.devices) {
    if (device < 0 || device >= int(node.gpu_free.size())) return "no such device";
    if (std::find(seen.begin(), seen.end(), device) != seen.end()) return "device used twice";
    seen.push_back(device);
    if (node.gpu_free[device] < task.gpu_milli) {
      return "device " + std::to_string(device) + " of " + node.spec->name + " has " +
             std::to_string(node.gpu_free[device]) + " milli-GPUs free, task needs " +
             std::to_string(task.gpu_milli);
    }
  }
  return std::nullopt;
}

void FragCluster::Apply(const TaskPlacement& placement, const AlibabaTask& task) {
  if (const auto problem = Check(placement, task)) {
    throw std::logic_error("placement of task " + task.name + " does not fit: " + *problem);
  }
  FragNode& node = nodes_[placement.node];
  node.cpu_free -= task.cpu_milli;
  node.memory_free -= task.memory_mib;
  for (int device : placement.devices) node.gpu_free[device] -= task.gpu_milli;
  allocated_milli_ += task.TotalGpuMilli();
}

std::string TaskKind(const AlibabaTask& task) {
  if (task.num_gpu == 0) return "cpu-only";
  if (task.gpu_milli < 1000) return "fraction";
  return std::to_string(task.num_gpu) + "-gpu";
}

std::vector<int> PickDevices(const FragNode& node, const AlibabaTask& task) {
  std::vector<int> devices;
  if (task.num_gpu == 1 && task.gpu_milli < 1000) {
    int best = -1;
    for (int d = 0; d < int(node.gpu_free.size()); ++d) {
      if (node.gpu_free[d] >= task.gpu_milli &&
          (best < 0 || node.gpu_free[d] < node.gpu_free[best])) {
        best = d;
      }
    }
    if (best >= 0) devices.push_back(best);
    return devices;
  }
  for (int d = 0; d < int(node.gpu_free.size()) && int(devices.size()) < task.num_gpu; ++d) {
    if (node.gpu_free[d] == 1000) devices.push_back(d);
  }
  if (int(devices.size()) < task.num_gpu) devices.clear();
  return devices;
}

std::optional<TaskPlacement> BestFitPlacer::Place(const FragCluster& cluster,
                                                  const AlibabaTask& task, int64_t) {
  double max_cpu = 1, max_gpu = 1;
  for (const auto& node : cluster.nodes()) {
    max_cpu = std::max(max_cpu, double(node.spec->cpu_milli));
    max_gpu = std::max(max_gpu, 1000.0 * node.spec->gpus);
  }
  std::optional<TaskPlacement> best;
  double best_score = std::numeric_limits<double>::infinity();
  for (int n = 0; n < int(cluster.nodes().size()); ++n) {
    const FragNode& node = cluster.nodes()[n];
    if (!FragCluster::NodeAdmits(node, task)) continue;
    std::vector<int> devices = PickDevices(node, task);
    if (int(devices.size()) != task.num_gpu) continue;
    int64_t gpu_free = 0;
    for (int free : node.gpu_free) gpu_free += free;
    const double score = 0.5 * (node.cpu_free - task.cpu_milli) / max_cpu +
                         0.5 * double(gpu_free - task.TotalGpuMilli()) / max_gpu;
    if (score < best_score) {
      best_score = score;
      best = TaskPlacement{n, std::move(devices)};
    }
  }
  return best;
}

std::vector<size_t> SampleArrivals(const std::vector<AlibabaTask>& tasks, int64_t capacity_milli,
                                   double target_percent, uint64_t seed) {
  int64_t total_request = 0;
  for (const auto& task : tasks) total_request += task.TotalGpuMilli();
  if (total_request == 0) throw std::invalid_argument("the pod list asks for no GPUs");
  const double target = capacity_milli * target_percent / 100.0;
  std::mt19937_64 random(seed);
  std::vector<size_t> order(tasks.size()), arrivals;
  double requested = 0;
  while (requested < target) {
    // Fisher-Yates written out: std::shuffle's sequence differs between libraries.
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random() % i]);
    for (size_t i = 0; i < order.size() && requested < target; ++i) {
      arrivals.push_back(order[i]);
      requested += double(tasks[order[i]].TotalGpuMilli());
    }
  }
  return arrivals;
}

double FragRun::AllocatedAt(double arrived_percent) const {
  for (const auto& point : curve) {
    if (point.arrived_percent >= arrived_percent) return point.allocated_percent;
  }
  return AllocatedPercent();
}

FragExperiment RunFragmentation(const std::vector<AlibabaNode>& nodes,
                                const std::vector<AlibabaTask>& tasks, double target_percent,
                                uint64_t seed, const std::vector<TaskPlacer*>& placers) {
  FragExperiment experiment;
  const FragCluster empty(nodes);
  experiment.nodes = nodes.size();
  experiment.capacity_milli = empty.capacity_milli();
  experiment.target_percent = target_percent;
  experiment.seed = seed;
  if (experiment.capacity_milli == 0) throw std::invalid_argument("the node list has no GPUs");
  const auto arrivals = SampleArrivals(tasks, experiment.capacity_milli, target_percent, seed);
  experiment.arrivals = arrivals.size();
  const double capacity = double(experiment.capacity_milli);
  for (TaskPlacer* placer : placers) {
    FragCluster cluster(nodes);
    FragRun run{placer->Name()};
    run.curve.reserve(arrivals.size());
    int64_t requested = 0;
    const auto started = std::chrono::steady_clock::now();
    for (size_t i = 0; i < arrivals.size(); ++i) {
      const AlibabaTask& task = tasks[arrivals[i]];
      requested += task.TotalGpuMilli();
      if (auto placement = placer->Place(cluster, task, int64_t(i))) {
        cluster.Apply(*placement, task);
        ++run.placed;
      } else {
        ++run.failed;
        run.failed_gpu_milli += task.TotalGpuMilli();
        ++run.failed_by_kind[TaskKind(task)];
        if (run.first_failure_percent < 0) run.first_failure_percent = 100.0 * requested / capacity;
      }
      run.curve.push_back(
          {100.0 * requested / capacity, 100.0 * cluster.allocated_milli() / capacity});
    }
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    experiment.runs.push_back(std::move(run));
  }
  return experiment;
}

}  // namespace gpupool::replay
