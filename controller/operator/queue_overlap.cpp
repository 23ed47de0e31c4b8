// Cycle step 1, queues: a node belongs to one queue's pool. Two queues whose
// selectors match the same nodes would each promise those GPUs (a project
// guaranteed 8 in one could get 1 while the other lent them out), so the queue
// created later is refused until the selectors part, and both say why.
#include <algorithm>
#include <map>

#include "cycle_state.h"

namespace gpupool::op::internal {
namespace {

constexpr std::size_t kNodesNamed = 5;

// "gpu-1, gpu-2 and 3 more".
std::string NameNodes(const std::vector<std::string>& nodes) {
  std::string out;
  for (std::size_t i = 0; i < nodes.size() && i < kNodesNamed; ++i)
    out += (i ? ", " : "") + nodes[i];
  if (nodes.size() > kNodesNamed)
    out += " and " + std::to_string(nodes.size() - kNodesNamed) + " more";
  return out;
}

// The nodes of `queue`'s pool already in the pool of a queue in force, by that queue.
std::map<std::string, std::vector<std::string>> SharedNodes(
    const CycleState& state, const api::Queue& queue,
    const std::map<std::string, std::string>& pool_of_node) {
  std::map<std::string, std::vector<std::string>> shared;
  for (const auto& [name, node] : state.nodes) {
    if (!InPool(queue, *node)) continue;
    auto owner = pool_of_node.find(name);
    if (owner != pool_of_node.end()) shared[owner->second].push_back(name);
  }
  return shared;
}

}  // namespace

std::string CountNodes(std::size_t count) {
  return std::to_string(count) + (count == 1 ? " node" : " nodes");
}

void IndexQueues(CycleState& state) {
  std::vector<const QueueObject*> queues;
  for (const auto& queue : state.view.queues)
    if (queue->errors.empty()) queues.push_back(queue.get());
  std::sort(queues.begin(), queues.end(),
            [](const auto* a, const auto* b) { return ClaimsBefore(a, b, kNodesOverlap); });
  std::map<std::string, std::string> pool_of_node;
  for (const QueueObject* queue : queues) {
    const std::string& name = queue->object.metadata.name;
    auto shared = SharedNodes(state, queue->object, pool_of_node);
    if (!shared.empty()) {
      auto& [first, nodes] = *shared.begin();
      state.refused_queues[name] = {first, nodes};
      state.overlapping_queues[first].push_back(name);
      state.overlapping_queues[name].push_back(first);
      continue;
    }
    state.queues[name] = queue;
    for (const auto& [node_name, node] : state.nodes)
      if (InPool(queue->object, *node)) pool_of_node.emplace(node_name, name);
  }
}

std::string QueueOverlapMessage(const CycleState& state, const std::string& queue) {
  auto refused = state.refused_queues.find(queue);
  if (refused == state.refused_queues.end()) return "";
  const auto& [first, nodes] = refused->second;
  return "queue " + queue + " is not in force: its pool shares " + CountNodes(nodes.size()) + " (" +
         NameNodes(nodes) + ") with queue " + first +
         ", created first; a node belongs to one queue";
}

}  // namespace gpupool::op::internal
