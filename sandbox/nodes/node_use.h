// What the live pods bound to each node hold of it: the resources they request
// and the device indices the device plugin gave them. Kept up to date as pods
// are bound, given devices, finish or go, so that a scheduling round reads a
// node's use instead of summing every pod of the cluster again.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpupool::sandbox {

struct Resources {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  int64_t gpu_milli = 0;
  int64_t pods = 0;
};

// What one pod holds of one node; an empty node holds nothing.
struct NodeClaim {
  std::string node;
  Resources requests;
  std::vector<int> devices;
};

class NodeUse {
 public:
  // Replaces what `counted` held with `now`, and records `now` in `counted`.
  void Update(NodeClaim& counted, NodeClaim now);
  // The sum of the requests of the pods on `node` (`pods`: how many).
  const Resources& Used(const std::string& node) const;
  // The device indices some pod on `node` holds.
  std::set<int> Devices(const std::string& node) const;

 private:
  struct Node {
    Resources used;
    std::map<int, int> holders;  // device index -> pods holding it
  };
  void Apply(const NodeClaim& claim, int sign);

  std::unordered_map<std::string, Node> nodes_;
};

}  // namespace gpupool::sandbox
