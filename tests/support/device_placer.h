// Places running jobs onto nodes as a careful scheduler would, checking every bound
// as it goes: a whole-GPU replica takes devices nothing else uses, a fraction shares
// one device only up to 1000 milli-GPUs, and cpu and memory never exceed a node's.
// Best fit: the node with the fewest free devices that fits (ties: the lowest node
// number), and a fraction on the fullest device it fits on. A gang gets all its
// replicas or none. One with a topology request gets them all in one domain (the
// first, in node order, where they fit); if none has room, a required request fails
// and a preferred one is placed anywhere. Nodes are grouped by pool and GPU model; a
// job names the groups it may use.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpupool/engine/snapshot.h"

namespace gpupool::engine::bench {

class DevicePlacer {
 public:
  // `pool_label`: the node label naming a node's pool.
  DevicePlacer(const std::vector<Node>& nodes, const std::string& pool_label);

  // The groups of a pool: all its models, or only `model` when not empty.
  std::vector<int> Groups(const std::string& pool, const std::string& model = "") const;

  // Places `replicas` replicas of job.shape on nodes of `groups` and records them in
  // job.replicas; false (and nothing taken) if they do not all fit.
  bool Place(RunningJob& job, int replicas, const std::vector<int>& groups,
             const TopologyRequest& topology = {});

  // Milli-GPUs held by the jobs placed, and the capacity, of a pool's nodes.
  MilliGpu Allocated(const std::string& pool) const;
  MilliGpu Capacity(const std::string& pool) const;

 private:
  struct NodeRoom {
    int group = 0;
    std::vector<MilliGpu> used;  // Per device.
    int free_devices = 0;        // Devices nothing uses.
    MilliCpu cpu = 0;
    Bytes memory = 0;
  };
  struct Group {
    std::string pool;
    std::string model;
    std::vector<std::set<int>> by_free_devices;  // [free devices] -> nodes.
    // Devices partly used by fractions, by the milli-GPUs left on them.
    std::map<MilliGpu, std::set<std::pair<int, int>>> partial_by_room;
    MilliGpu allocated = 0;
    MilliGpu capacity = 0;
  };
  // A node and the devices on it one replica would use.
  struct Spot {
    int node = 0;
    std::vector<int> devices;
  };
  using Finder = std::function<std::optional<Spot>(const ReplicaShape&)>;

  // Every replica where `find` says, or none.
  bool PlaceAll(RunningJob& job, int replicas, const Finder& find);
  // Best fit over all nodes of `groups`, through the size buckets.
  std::optional<Spot> Find(const ReplicaShape& shape, const std::vector<int>& groups) const;
  std::optional<Spot> FindFreeDevices(const ReplicaShape& shape,
                                      const std::vector<int>& groups) const;
  std::optional<Spot> FindSharedDevice(const ReplicaShape& shape,
                                       const std::vector<int>& groups) const;
  // Best fit over `nodes` (of one domain), keeping to `groups`.
  std::optional<Spot> FindAmong(const ReplicaShape& shape, const std::vector<int>& nodes,
                                const std::vector<int>& groups) const;
  // The nodes of each value of label `key`, in node order.
  const std::vector<std::vector<int>>& Domains(const std::string& key);
  bool HasRoom(int node, const ReplicaShape& shape) const;
  // Adds (sign 1) or removes (sign -1) one replica's use.
  void Use(const Spot& spot, const ReplicaShape& shape, int sign);
  void SetDevice(int node, int device, MilliGpu used);

  const std::vector<Node>& nodes_;
  std::vector<NodeRoom> rooms_;
  std::vector<Group> groups_;
  std::map<std::string, std::vector<std::vector<int>>> domains_;
};

}  // namespace gpupool::engine::bench
