// Invariants on what a cycle did, computed from the snapshots and decisions alone:
// the running set after a cycle is the one before plus admissions minus victims,
// with every placement where the decisions put it; admissions respect node
// selectors, GPU models and required topology; victims respect the minimum runtime.
#include <algorithm>
#include <map>
#include <set>

#include "invariants.h"

namespace gpupool::engine::testing {
namespace {

using Placement = std::vector<std::pair<std::string, std::vector<int>>>;

Placement Normalized(const std::vector<ReplicaPlacement>& replicas) {
  Placement out;
  for (const ReplicaPlacement& r : replicas) {
    std::vector<int> devices = r.devices;
    std::sort(devices.begin(), devices.end());
    out.emplace_back(r.node, std::move(devices));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

void CheckRunningSet(const Snapshot& before, const Decisions& d, const Snapshot& after,
                     std::vector<std::string>& errors) {
  std::map<std::string, Placement> running, stopping;
  for (const RunningJob& r : before.running) {
    (r.terminating ? stopping : running)[r.name] = Normalized(r.replicas);
  }
  for (const Preemption& p : d.preemptions) {
    auto victim = running.find(p.victim);
    if (victim == running.end()) {
      errors.push_back("victim was not running: " + p.victim);
      continue;
    }
    stopping[p.victim] = victim->second;
    running.erase(victim);
  }
  for (const Admission& a : d.admissions) {
    if (running.count(a.job) || stopping.count(a.job)) {
      errors.push_back("admitted job was running already: " + a.job);
    }
    running[a.job] = Normalized(a.replicas);
  }
  std::map<std::string, Placement> running_after, stopping_after;
  for (const RunningJob& r : after.running) {
    (r.terminating ? stopping_after : running_after)[r.name] = Normalized(r.replicas);
  }
  for (const auto& [name, placement] : running) {
    auto found = running_after.find(name);
    if (found == running_after.end()) {
      errors.push_back("job lost from the running set: " + name);
    } else if (found->second != placement) {
      errors.push_back("job moved: " + name);
    }
  }
  for (const auto& [name, placement] : running_after) {
    if (!running.count(name)) errors.push_back("job running from nowhere: " + name);
  }
  if (stopping != stopping_after) errors.push_back("terminating victims differ from expected");
}

void CheckPlacementRules(const Snapshot& before, const Decisions& d,
                         std::vector<std::string>& errors) {
  std::map<std::string, const Node*> nodes;
  for (const Node& n : before.nodes) nodes[n.name] = &n;
  std::map<std::string, const Queue*> queues;
  for (const Queue& q : before.queues) queues[q.name] = &q;
  std::map<std::string, const PendingJob*> pending;
  for (const PendingJob& p : before.pending) pending[p.name] = &p;
  for (const Admission& a : d.admissions) {
    auto job = pending.find(a.job);
    if (job == pending.end()) continue;
    const PendingJob& j = *job->second;
    std::set<std::string> domains;
    for (const ReplicaPlacement& r : a.replicas) {
      auto node = nodes.find(r.node);
      if (node == nodes.end()) continue;  // CheckDevices reports it.
      const Node& n = *node->second;
      if (!SelectorMatches(j.node_selector, n.labels))
        errors.push_back("node selector broken: " + a.job);
      if (queues.count(j.queue) && !SelectorMatches(queues[j.queue]->node_selector, n.labels)) {
        errors.push_back("placed outside its queue's pool: " + a.job);
      }
      if (!j.gpu_models.empty() &&
          std::find(j.gpu_models.begin(), j.gpu_models.end(), n.gpu_model) == j.gpu_models.end()) {
        errors.push_back("GPU model not asked for: " + a.job);
      }
      auto domain = n.labels.find(j.topology.key);
      domains.insert(domain == n.labels.end() ? "" : domain->second);
    }
    if (j.topology.mode == TopologyMode::kRequired && (domains.size() != 1 || domains.count(""))) {
      errors.push_back("required topology broken: " + a.job);
    }
  }
  std::map<std::string, const RunningJob*> running;
  for (const RunningJob& r : before.running) running[r.name] = &r;
  for (const Preemption& p : d.preemptions) {
    auto victim = running.find(p.victim);
    if (victim == running.end() || !queues.count(victim->second->queue)) continue;
    if (before.now - victim->second->start_time <
        queues[victim->second->queue]->min_runtime_seconds) {
      errors.push_back("victim younger than its queue's minimum runtime: " + p.victim);
    }
  }
}

}  // namespace gpupool::engine::testing
