// Queues and projects of a live cluster: created, changed and deleted in place.
// A quota raised (or a limit) lets the project's jobs be looked at again; a quota
// lowered makes its work above the new quota reclaimable where it runs. Changes to
// queues (pools, sharing, runtimes) are rare: the next cycle is a full one.
#include <algorithm>

#include "state.h"

namespace gpupool::engine::internal {
namespace {

// Whether a cpu or memory quota (-1: none) lets more in than before.
bool Looser(std::int64_t now, std::int64_t was) { return was >= 0 && (now < 0 || now > was); }

}  // namespace

void ClusterState::UpsertQueue(const Queue& spec) {
  changes.structure = true;
  auto it = queue_index.find(spec.name);
  int q;
  if (it != queue_index.end()) {
    q = it->second;
    queues[q].spec = spec;
  } else {
    q = static_cast<int>(queues.size());
    queues.push_back(QueueState{spec, {}, 0, 0, false});
    queue_index.emplace(spec.name, q);
    // Slots are queue-major: a new queue's slots come after all others.
    for (std::size_t p = 0; p < projects.size(); ++p) {
      quotas.emplace_back();
      usage.emplace_back();
      pending.push_back(NewPendingSet());
      victims.push_back(NewVictimSet());
    }
  }
  last_queue_ = -1;
  SetQueuePool(q);
  for (std::size_t p = 0; p < projects.size(); ++p) SetQuotas(static_cast<int>(p));
  ApplyDepartments();
  RebindJobs(spec.name);
  eligible.clear();  // Pools and the queue's nodes changed: recomputed on first use.
  if (tracking_) EnableTracking();
}

bool ClusterState::RemoveQueue(const std::string& name) {
  auto it = queue_index.find(name);
  if (it == queue_index.end()) return false;
  int q = it->second;
  changes.structure = true;
  // Its jobs wait for a queue of that name; running ones keep their devices.
  for (int j = 0; j < static_cast<int>(jobs.size()); ++j) {
    if (jobs[j].alive && jobs[j].queue == q) Rebind(j, -1);
  }
  QueueState& queue = queues[q];
  for (int n : queue.nodes) std::erase(nodes[n].queues, q);
  queue.nodes.clear();
  queue.capacity = queue.free = 0;
  queue.removed = true;
  queue_index.erase(it);
  last_queue_ = -1;
  for (std::size_t p = 0; p < projects.size(); ++p) {
    quotas[Slot(q, static_cast<int>(p))] = QuotaState{};
  }
  ApplyDepartments();
  eligible.clear();
  if (tracking_) EnableTracking();
  return true;
}

// The queue's pool from the node labels, with its capacity and free GPUs.
void ClusterState::SetQueuePool(int q) {
  QueueState& queue = queues[q];
  for (int n : queue.nodes) std::erase(nodes[n].queues, q);
  queue.nodes.clear();
  queue.capacity = queue.free = 0;
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    NodeState& node = nodes[n];
    if (node.removed || !LabelsMatch(queue.spec.node_selector, node.labels)) continue;
    queue.nodes.push_back(n);
    node.queues.push_back(q);
    if (!node.schedulable) continue;
    queue.capacity += node.capacity;
    queue.free += NodeFree(node);
  }
  ResolveLimits();
}

// Jobs that named a queue that did not exist belong to it now.
void ClusterState::RebindJobs(const std::string& queue_name) {
  int q = queue_index.at(queue_name);
  for (int j = 0; j < static_cast<int>(jobs.size()); ++j) {
    if (jobs[j].alive && jobs[j].queue < 0 && jobs[j].queue_name == queue_name) Rebind(j, q);
  }
}

// Moves a job to another queue (-1: none) through every index it is in.
void ClusterState::Rebind(int j, int q) {
  JobState& job = jobs[j];
  auto reset_ids = [&] {
    job.queue = q;
    job.constraint_id = job.shape_id = job.group_id = -1;  // Keys include the queue.
  };
  if (job.running) {
    IndexRunning(j, false);
    Account(job, -1);
    reset_ids();
    Account(job, +1);
    IndexRunning(j, true);
  } else if (job.terminating) {
    Account(job, -1);
    reset_ids();
    Account(job, +1);
  } else {
    IndexPending(j, false);
    reset_ids();
    IndexPending(j, true);
  }
}

void ClusterState::UpsertProject(const Project& spec) {
  int p = ProjectFor(spec.name);
  projects[p].priority = spec.priority;  // Turn order only: nothing to look at again.
  projects[p].quotas = spec.quotas;
  projects[p].department_name = spec.department;
  if (!departments.empty()) {
    // Its department's other projects may be scaled differently now.
    SetQuotas(p);
    ApplyDepartments();
    changes.structure = true;
    return;
  }
  std::vector<QuotaState> before;
  for (std::size_t q = 0; q < queues.size(); ++q) {
    before.push_back(quotas[Slot(static_cast<int>(q), p)]);
  }
  SetQuotas(p);
  if (!tracking_) return;
  for (std::size_t q = 0; q < queues.size(); ++q) {
    std::size_t slot = Slot(static_cast<int>(q), p);
    const QuotaState& now = quotas[slot];
    const QuotaState& was = before[q];
    if (now.gpu > was.gpu || now.limit > was.limit || Looser(now.cpu, was.cpu) ||
        Looser(now.memory, was.memory)) {
      changes.dropped_slots.push_back(slot);
    }
    if (now.gpu >= was.gpu) continue;
    for (int v : victims[slot]) {
      for (const Placed& placed : jobs[v].placed) {
        if (placed.node >= 0) changes.reclaimable_nodes.push_back(placed.node);
      }
    }
  }
}

bool ClusterState::RemoveProject(const std::string& name) {
  if (!project_index.count(name)) return false;
  UpsertProject(Project{name, 0, {}});  // Its jobs stay, with quota 0.
  return true;
}

}  // namespace gpupool::engine::internal
