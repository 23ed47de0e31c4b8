#include "sandbox/nodes/node_use.h"

namespace gpupool::sandbox {

void NodeUse::Update(NodeClaim& counted, NodeClaim now) {
  Apply(counted, -1);
  Apply(now, +1);
  counted = std::move(now);
}

void NodeUse::Apply(const NodeClaim& claim, int sign) {
  if (claim.node.empty()) return;
  Node& node = nodes_[claim.node];
  node.used.cpu_milli += sign * claim.requests.cpu_milli;
  node.used.memory_bytes += sign * claim.requests.memory_bytes;
  node.used.gpu_milli += sign * claim.requests.gpu_milli;
  node.used.pods += sign;
  for (int device : claim.devices) {
    const int holders = node.holders[device] += sign;
    if (holders == 0) node.holders.erase(device);
  }
  if (node.used.pods == 0) nodes_.erase(claim.node);
}

const Resources& NodeUse::Used(const std::string& node) const {
  static const Resources kNothing;
  auto found = nodes_.find(node);
  return found == nodes_.end() ? kNothing : found->second.used;
}

std::set<int> NodeUse::Devices(const std::string& node) const {
  std::set<int> held;
  auto found = nodes_.find(node);
  if (found == nodes_.end()) return held;
  for (const auto& [device, holders] : found->second.holders) held.insert(device);
  return held;
}

}  // namespace gpupool::sandbox
