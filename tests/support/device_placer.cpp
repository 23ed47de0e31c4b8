#include "device_placer.h"

#include <algorithm>

namespace gpupool::engine::bench {
namespace {

// Nodes of one size bucket looked at for cpu and memory before the next bucket.
constexpr int kNodesTriedPerBucket = 64;

MilliGpu PerDevice(const ReplicaShape& shape) { return std::min(shape.gpu_milli, kMilliPerGpu); }

// The first `wanted` devices nothing uses.
std::vector<int> FreeDevices(const std::vector<MilliGpu>& used, std::size_t wanted) {
  std::vector<int> devices;
  for (std::size_t d = 0; d < used.size() && devices.size() < wanted; ++d) {
    if (used[d] == 0) devices.push_back(static_cast<int>(d));
  }
  return devices;
}

}  // namespace

DevicePlacer::DevicePlacer(const std::vector<Node>& nodes, const std::string& pool_label)
    : nodes_(nodes) {
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    const Node& node = nodes[static_cast<std::size_t>(n)];
    auto pool = node.labels.find(pool_label);
    std::string pool_name = pool == node.labels.end() ? "" : pool->second;
    auto group = std::find_if(groups_.begin(), groups_.end(), [&](const Group& g) {
      return g.pool == pool_name && g.model == node.gpu_model;
    });
    if (group == groups_.end()) {
      groups_.push_back({pool_name, node.gpu_model, {}, {}, 0, 0});
      group = groups_.end() - 1;
    }
    int g = static_cast<int>(group - groups_.begin());
    if (group->by_free_devices.size() <= static_cast<std::size_t>(node.gpus)) {
      group->by_free_devices.resize(static_cast<std::size_t>(node.gpus) + 1);
    }
    group->by_free_devices[static_cast<std::size_t>(node.gpus)].insert(n);
    group->capacity += MilliGpu{node.gpus} * kMilliPerGpu;
    rooms_.push_back({g, std::vector<MilliGpu>(static_cast<std::size_t>(node.gpus), 0), node.gpus,
                      node.cpu_milli, node.memory_bytes});
  }
}

std::vector<int> DevicePlacer::Groups(const std::string& pool, const std::string& model) const {
  std::vector<int> out;
  for (int g = 0; g < static_cast<int>(groups_.size()); ++g) {
    const Group& group = groups_[static_cast<std::size_t>(g)];
    if (group.pool == pool && (model.empty() || group.model == model)) out.push_back(g);
  }
  return out;
}

bool DevicePlacer::Place(RunningJob& job, int replicas, const std::vector<int>& groups,
                         const TopologyRequest& topology) {
  if (topology.mode != TopologyMode::kNone && replicas > 1) {
    for (const std::vector<int>& domain : Domains(topology.key)) {
      Finder among = [&](const ReplicaShape& shape) { return FindAmong(shape, domain, groups); };
      if (PlaceAll(job, replicas, among)) return true;
    }
    if (topology.mode == TopologyMode::kRequired) return false;
  }
  return PlaceAll(job, replicas, [&](const ReplicaShape& shape) { return Find(shape, groups); });
}

bool DevicePlacer::PlaceAll(RunningJob& job, int replicas, const Finder& find) {
  std::vector<Spot> placed;
  for (int r = 0; r < replicas; ++r) {
    std::optional<Spot> spot = find(job.shape);
    if (!spot) {
      for (const Spot& undo : placed) Use(undo, job.shape, -1);
      return false;
    }
    Use(*spot, job.shape, 1);
    placed.push_back(std::move(*spot));
  }
  job.replicas.clear();
  for (Spot& spot : placed) {
    job.replicas.push_back(
        {nodes_[static_cast<std::size_t>(spot.node)].name, std::move(spot.devices)});
  }
  return true;
}

std::optional<DevicePlacer::Spot> DevicePlacer::Find(const ReplicaShape& shape,
                                                     const std::vector<int>& groups) const {
  if (shape.gpu_milli <= 0) return std::nullopt;
  if (shape.gpu_milli < kMilliPerGpu) {
    if (auto shared = FindSharedDevice(shape, groups)) return shared;
    ReplicaShape one_device = shape;
    one_device.gpu_milli = kMilliPerGpu;
    return FindFreeDevices(one_device, groups);
  }
  if (shape.gpu_milli % kMilliPerGpu != 0) return std::nullopt;
  return FindFreeDevices(shape, groups);
}

bool DevicePlacer::HasRoom(int node, const ReplicaShape& shape) const {
  const NodeRoom& room = rooms_[static_cast<std::size_t>(node)];
  return room.cpu >= shape.cpu_milli && room.memory >= shape.memory_bytes;
}

std::optional<DevicePlacer::Spot> DevicePlacer::FindFreeDevices(
    const ReplicaShape& shape, const std::vector<int>& groups) const {
  auto wanted = static_cast<std::size_t>(shape.gpu_milli / kMilliPerGpu);
  for (std::size_t free = wanted; free <= 64; ++free) {
    for (int g : groups) {
      const Group& group = groups_[static_cast<std::size_t>(g)];
      if (free >= group.by_free_devices.size()) continue;
      int tried = 0;
      for (int node : group.by_free_devices[free]) {
        if (tried++ == kNodesTriedPerBucket) break;
        if (!HasRoom(node, shape)) continue;
        return Spot{node, FreeDevices(rooms_[static_cast<std::size_t>(node)].used, wanted)};
      }
    }
  }
  return std::nullopt;
}

std::optional<DevicePlacer::Spot> DevicePlacer::FindSharedDevice(
    const ReplicaShape& shape, const std::vector<int>& groups) const {
  std::optional<Spot> best;
  MilliGpu best_room = kMilliPerGpu;
  for (int g : groups) {
    const Group& group = groups_[static_cast<std::size_t>(g)];
    for (auto it = group.partial_by_room.lower_bound(shape.gpu_milli);
         it != group.partial_by_room.end() && it->first < best_room; ++it) {
      int tried = 0;
      for (const auto& [node, device] : it->second) {
        if (tried++ == kNodesTriedPerBucket) break;
        if (!HasRoom(node, shape)) continue;
        best = Spot{node, {device}};
        best_room = it->first;
        break;
      }
    }
  }
  return best;
}

std::optional<DevicePlacer::Spot> DevicePlacer::FindAmong(const ReplicaShape& shape,
                                                          const std::vector<int>& nodes,
                                                          const std::vector<int>& groups) const {
  if (shape.gpu_milli <= 0 || (shape.gpu_milli > kMilliPerGpu && shape.gpu_milli % kMilliPerGpu))
    return std::nullopt;
  bool fraction = shape.gpu_milli < kMilliPerGpu;
  auto wanted = static_cast<std::size_t>(fraction ? 1 : shape.gpu_milli / kMilliPerGpu);
  std::optional<Spot> best;
  MilliGpu best_key = 0;  // Lower fits tighter: room left on a shared device, then free devices.
  for (int node : nodes) {
    const NodeRoom& room = rooms_[static_cast<std::size_t>(node)];
    if (std::find(groups.begin(), groups.end(), room.group) == groups.end()) continue;
    if (!HasRoom(node, shape)) continue;
    for (std::size_t d = 0; fraction && d < room.used.size(); ++d) {
      MilliGpu used = room.used[d];
      if (used == 0 || used + shape.gpu_milli > kMilliPerGpu) continue;
      if (!best || kMilliPerGpu - used < best_key) {
        best = Spot{node, {static_cast<int>(d)}};
        best_key = kMilliPerGpu - used;
      }
    }
    if (static_cast<std::size_t>(room.free_devices) < wanted) continue;
    MilliGpu key = kMilliPerGpu + room.free_devices;
    if (!best || key < best_key) {
      best = Spot{node, FreeDevices(room.used, wanted)};
      best_key = key;
    }
  }
  return best;
}

const std::vector<std::vector<int>>& DevicePlacer::Domains(const std::string& key) {
  auto [it, added] = domains_.try_emplace(key);
  if (!added) return it->second;
  std::map<std::string, std::size_t> index;
  for (int n = 0; n < static_cast<int>(nodes_.size()); ++n) {
    const Labels& labels = nodes_[static_cast<std::size_t>(n)].labels;
    auto value = labels.find(key);
    if (value == labels.end()) continue;
    auto [at, fresh] = index.try_emplace(value->second, it->second.size());
    if (fresh) it->second.emplace_back();
    it->second[at->second].push_back(n);
  }
  return it->second;
}

void DevicePlacer::Use(const Spot& spot, const ReplicaShape& shape, int sign) {
  NodeRoom& room = rooms_[static_cast<std::size_t>(spot.node)];
  for (int device : spot.devices) {
    MilliGpu used = room.used[static_cast<std::size_t>(device)] + sign * PerDevice(shape);
    SetDevice(spot.node, device, used);
  }
  room.cpu -= sign * shape.cpu_milli;
  room.memory -= sign * shape.memory_bytes;
}

void DevicePlacer::SetDevice(int node, int device, MilliGpu used) {
  NodeRoom& room = rooms_[static_cast<std::size_t>(node)];
  Group& group = groups_[static_cast<std::size_t>(room.group)];
  MilliGpu& current = room.used[static_cast<std::size_t>(device)];
  if (current > 0 && current < kMilliPerGpu) {
    group.partial_by_room[kMilliPerGpu - current].erase({node, device});
  }
  if (used > 0 && used < kMilliPerGpu)
    group.partial_by_room[kMilliPerGpu - used].insert({node, device});
  int free_change = (used == 0) - (current == 0);
  if (free_change != 0) {
    group.by_free_devices[static_cast<std::size_t>(room.free_devices)].erase(node);
    room.free_devices += free_change;
    group.by_free_devices[static_cast<std::size_t>(room.free_devices)].insert(node);
  }
  group.allocated += used - current;
  current = used;
}

MilliGpu DevicePlacer::Allocated(const std::string& pool) const {
  MilliGpu sum = 0;
  for (const Group& group : groups_) sum += group.pool == pool ? group.allocated : 0;
  return sum;
}

MilliGpu DevicePlacer::Capacity(const std::string& pool) const {
  MilliGpu sum = 0;
  for (const Group& group : groups_) sum += group.pool == pool ? group.capacity : 0;
  return sum;
}

}  // namespace gpupool::engine::bench
