#include "packing.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace gpupool::engine::internal {

PackingModel::PackingModel(std::vector<WorkloadShape> shapes, std::size_t max_shapes) {
  std::erase_if(shapes,
                [](const WorkloadShape& s) { return s.shape.gpu_milli <= 0 || s.weight <= 0; });
  std::stable_sort(
      shapes.begin(), shapes.end(),
      [](const WorkloadShape& a, const WorkloadShape& b) { return a.weight > b.weight; });
  if (shapes.size() > max_shapes) shapes.resize(max_shapes);
  double total = 0;
  for (const WorkloadShape& s : shapes) total += s.weight;
  for (WorkloadShape& s : shapes) s.weight /= total;
  shapes_ = std::move(shapes);
}

PackingModel PackingModel::Learn(const EngineState& state) {
  std::map<std::tuple<MilliGpu, MilliCpu, Bytes>, double> counts;
  for (const JobState& job : state.jobs) {
    if (!job.alive || job.shape.gpu_milli <= 0) continue;
    int replicas = job.running ? static_cast<int>(job.placed.size()) : job.replicas;
    counts[{job.shape.gpu_milli, job.shape.cpu_milli, job.shape.memory_bytes}] += replicas;
  }
  std::vector<WorkloadShape> shapes;
  shapes.reserve(counts.size());
  for (const auto& [key, count] : counts) {
    shapes.push_back({{std::get<0>(key), std::get<1>(key), std::get<2>(key)}, count});
  }
  return PackingModel(std::move(shapes));
}

namespace {

// The node's devices as free milli-GPUs, smallest first (at most 64).
struct FreeView {
  std::int32_t free[64];
  int count = 0;
  MilliGpu total = 0;
  int full = 0;
};

void Sort(FreeView& view) {
  std::sort(view.free, view.free + view.count);
  view.total = 0;
  view.full = 0;
  for (int i = 0; i < view.count; ++i) {
    view.total += view.free[i];
    if (view.free[i] == kMilliPerGpu) ++view.full;
  }
}

double WasteOf(const std::vector<WorkloadShape>& shapes, const FreeView& view, MilliCpu cpu_free,
               Bytes memory_free) {
  double waste = 0;
  for (const WorkloadShape& s : shapes) {
    const ReplicaShape& r = s.shape;
    bool fraction = r.gpu_milli < kMilliPerGpu;
    bool fits = r.cpu_milli <= cpu_free && r.memory_bytes <= memory_free &&
                (fraction ? view.count > 0 && view.free[view.count - 1] >= r.gpu_milli
                          : view.full >= r.gpu_milli / kMilliPerGpu);
    if (!fits) {
      waste += s.weight * static_cast<double>(view.total);
      continue;
    }
    MilliGpu unusable = 0;
    MilliGpu need = fraction ? r.gpu_milli : kMilliPerGpu;
    for (int i = 0; i < view.count && view.free[i] < need; ++i) unusable += view.free[i];
    waste += s.weight * static_cast<double>(unusable);
  }
  return waste;
}

}  // namespace

double PackingModel::Waste(const std::vector<std::int32_t>& used, MilliCpu cpu_free,
                           Bytes memory_free) const {
  FreeView view;
  for (std::int32_t u : used) view.free[view.count++] = kMilliPerGpu - u;
  Sort(view);
  return WasteOf(shapes_, view, cpu_free, memory_free);
}

double PackingModel::WasteAfter(const NodeState& node, std::uint64_t mask, MilliGpu per_device,
                                MilliCpu cpu, Bytes memory) const {
  FreeView view;
  for (std::size_t d = 0; d < node.used.size(); ++d) {
    std::int32_t free = kMilliPerGpu - node.used[d];
    if (mask >> d & 1) free -= static_cast<std::int32_t>(per_device);
    view.free[view.count++] = free;
  }
  Sort(view);
  return WasteOf(shapes_, view, node.cpu_free - cpu, node.memory_free - memory);
}

}  // namespace gpupool::engine::internal
