#include "packing.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace gpupool::engine::internal {

PackingModel::PackingModel(std::vector<WorkloadShape> shapes, std::size_t max_shapes) {
  std::erase_if(shapes, [](const WorkloadShape& s) {
    return s.shape.gpu_milli <= 0 || s.weight <= 0 ||
           (s.shape.gpu_milli > kMilliPerGpu && s.shape.gpu_milli % kMilliPerGpu != 0);
  });
  std::stable_sort(
      shapes.begin(), shapes.end(),
      [](const WorkloadShape& a, const WorkloadShape& b) { return a.weight > b.weight; });
  if (shapes.size() > max_shapes) shapes.resize(max_shapes);
  double total = 0;
  for (const WorkloadShape& s : shapes) total += s.weight;
  for (WorkloadShape& s : shapes) {
    s.weight /= total;
    auto it = std::find(sizes_.begin(), sizes_.end(), s.shape.gpu_milli);
    size_of_.push_back(static_cast<std::size_t>(it - sizes_.begin()));
    if (it == sizes_.end()) sizes_.push_back(s.shape.gpu_milli);
  }
  shapes_ = std::move(shapes);
}

PackingModel PackingModel::Learn(const ClusterState& state) {
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

// A node's free GPU capacity: free milli per device, how many devices are whole.
struct PackingModel::View {
  std::int32_t free[64];
  int count = 0;
  MilliGpu total = 0;
  int full = 0;
};

double PackingModel::WasteOf(const View& view, MilliCpu cpu_free, Bytes memory_free) const {
  MilliGpu gpu_copies[64];
  for (std::size_t i = 0; i < sizes_.size() && i < 64; ++i) {
    MilliGpu size = sizes_[i];
    MilliGpu copies = 0;
    if (size < kMilliPerGpu) {
      for (int d = 0; d < view.count; ++d) copies += view.free[d] / size;
    } else {
      copies = view.full / (size / kMilliPerGpu);
    }
    gpu_copies[i] = copies;
  }
  double waste = 0;
  for (std::size_t s = 0; s < shapes_.size(); ++s) {
    const ReplicaShape& r = shapes_[s].shape;
    MilliGpu copies = size_of_[s] < 64 ? gpu_copies[size_of_[s]] : 0;
    if (r.cpu_milli > 0)
      copies = std::min<MilliGpu>(copies, std::max<MilliCpu>(0, cpu_free) / r.cpu_milli);
    if (r.memory_bytes > 0) {
      copies = std::min<MilliGpu>(copies, std::max<Bytes>(0, memory_free) / r.memory_bytes);
    }
    waste += shapes_[s].weight * static_cast<double>(view.total - copies * r.gpu_milli);
  }
  return waste;
}

double PackingModel::WasteAfter(const NodeState& node, std::uint64_t mask, MilliGpu per_device,
                                MilliCpu cpu, Bytes memory) const {
  View view;
  for (std::size_t d = 0; d < node.used.size() && d < 64; ++d) {
    auto free = static_cast<std::int32_t>(DeviceFree(node.used[d]));
    if (mask >> d & 1) free -= static_cast<std::int32_t>(per_device);
    view.free[view.count++] = free;
  }
  // Unmanaged whole devices are some of the free ones (which is unknown): counted used.
  for (int d = 0, left = node.unmanaged_gpus; d < view.count && left > 0; ++d) {
    if (view.free[d] != kMilliPerGpu) continue;
    view.free[d] = 0;
    --left;
  }
  std::sort(view.free, view.free + view.count);
  // Equal states (same free pieces, cpu and memory) waste the same: many nodes of a
  // large cluster look alike, so each state is scored once.
  std::uint64_t key = 1469598103934665603ull;
  auto mix = [&key](std::uint64_t v) { key = (key ^ v) * 1099511628211ull; };
  for (int d = 0; d < view.count; ++d) {
    view.total += view.free[d];
    if (view.free[d] == kMilliPerGpu) ++view.full;
    mix(static_cast<std::uint64_t>(view.free[d]));
  }
  MilliCpu cpu_left = node.cpu_free - cpu;
  Bytes memory_left = node.memory_free - memory;
  mix(static_cast<std::uint64_t>(cpu_left));
  mix(static_cast<std::uint64_t>(memory_left));
  mix(static_cast<std::uint64_t>(view.count));
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  double waste = WasteOf(view, cpu_left, memory_left);
  if (memo_.size() > (1u << 20)) memo_.clear();
  memo_.emplace(key, waste);
  return waste;
}

PackingModel PackingModel::For(const ClusterState& state) {
  if (state.options.packing != Packing::kFragmentationAware) return PackingModel({});
  if (!state.options.expected_workload.empty()) {
    return PackingModel(state.options.expected_workload);
  }
  return Learn(state);
}

}  // namespace gpupool::engine::internal
