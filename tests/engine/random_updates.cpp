#include "random_updates.h"

#include <map>
#include <set>

#include "cluster_builder.h"

namespace gpupool::engine::testing {
namespace {

// Devices in use on the node: by our jobs (terminating ones too) or unmanaged milli.
int DevicesInUse(const Snapshot& s, const Node& node) {
  std::set<int> devices;
  for (const RunningJob& j : s.running) {
    for (const ReplicaPlacement& r : j.replicas) {
      if (r.node == node.name) devices.insert(r.devices.begin(), r.devices.end());
    }
  }
  for (std::size_t d = 0; d < node.unmanaged_milli.size(); ++d) {
    if (node.unmanaged_milli[d] > 0) devices.insert(static_cast<int>(d));
  }
  return static_cast<int>(devices.size());
}

void Flip(std::string& value, const char* one, const char* other) {
  value.assign(value == one ? other : one);
}

}  // namespace

void RandomUpdates::Apply(Engine& engine, std::map<std::string, int>& unmanaged) {
  Snapshot s = engine.ToSnapshot();
  if (Chance(0.3)) ChangeNode(engine, s, unmanaged);
  if (Chance(0.2)) ChangeSpecs(engine, s);
  ChangeJobs(engine, engine.ToSnapshot());
}

void RandomUpdates::ChangeNode(Engine& engine, const Snapshot& s,
                               std::map<std::string, int>& unmanaged) {
  int kind = Uniform(0, 5);
  if (kind == 0 || s.nodes.empty()) {
    Node node;
    node.name = Named("added-", next_node_++);
    node.gpus = Uniform(1, 8);
    node.gpu_model = "A100";
    node.labels = {{"rack", Chance(0.5) ? "a" : "b"}, {"pool", Chance(0.8) ? "train" : "build"}};
    node.cpu_milli = Uniform(8, 64) * 1000;
    node.memory_bytes = Bytes{1} << 40;
    node.unmanaged_gpus = Chance(0.3) ? Uniform(0, node.gpus) : 0;
    unmanaged[node.name] = node.unmanaged_gpus;
    engine.UpsertNode(node);
    return;
  }
  Node node = s.nodes[static_cast<std::size_t>(Uniform(0, static_cast<int>(s.nodes.size()) - 1))];
  if (kind == 1 && s.nodes.size() > 2) {
    unmanaged.erase(node.name);
    engine.RemoveNode(node.name);
    return;
  }
  if (kind == 2) node.schedulable = !node.schedulable;
  if (kind == 3) Flip(node.labels["pool"], "train", "build");
  if (kind == 4) Flip(node.labels["rack"], "a", "b");
  node.unmanaged_gpus = unmanaged[node.name];  // As the cluster says, not the engine.
  if (kind == 5) node.unmanaged_gpus = Uniform(0, node.gpus - DevicesInUse(s, node));
  unmanaged[node.name] = node.unmanaged_gpus;
  engine.UpsertNode(node);
}

void RandomUpdates::ChangeSpecs(Engine& engine, const Snapshot& s) {
  int kind = Uniform(0, 5);
  if (kind <= 2 && !s.projects.empty()) {
    Project project =
        s.projects[static_cast<std::size_t>(Uniform(0, static_cast<int>(s.projects.size()) - 1))];
    for (ProjectQuota& quota : project.quotas) {
      quota.gpu = std::max<MilliGpu>(0, quota.gpu + 500 * Uniform(-4, 4));
      if (Chance(0.3)) quota.over_quota_weight = Uniform(0, 3);
    }
    if (Chance(0.2)) project.priority = Uniform(0, 1);
    if (kind == 2 && Chance(0.3)) {
      engine.RemoveProject(project.name);
    } else {
      engine.UpsertProject(project);
    }
    return;
  }
  if (kind == 3) {
    for (Queue queue : s.queues) {
      if (queue.name != "train") continue;
      queue.min_runtime_seconds = Uniform(0, 1) * 60;
      queue.reclaim = !Chance(0.2);
      engine.UpsertQueue(queue);
    }
    return;
  }
  // The build queue is deleted, and later created again.
  if (!build_removed_) {
    for (const Queue& queue : s.queues) {
      if (queue.name == "build") build_queue_ = queue;
    }
    build_removed_ = engine.RemoveQueue("build");
  } else {
    engine.UpsertQueue(build_queue_);
    build_removed_ = false;
  }
}

void RandomUpdates::ChangeJobs(Engine& engine, const Snapshot& s) {
  for (const RunningJob& job : s.running) {
    if (job.terminating) {
      if (Chance(0.6)) engine.VictimGone(job.name);
      continue;
    }
    if (Chance(0.03)) engine.LoseReplica(job.name);
    if (Chance(0.03)) engine.UndoAdmission(job.name);
  }
  for (const PendingJob& job : s.pending) {
    if (Chance(0.05)) {
      PendingJob changed = job;
      changed.priority = Uniform(0, 2);
      if (Chance(0.5)) changed.shape.gpu_milli = Chance(0.5) ? 500 : 1000 * Uniform(1, 2);
      engine.UpsertPending(changed);
    } else if (Chance(0.03)) {
      PendingJob again = job;  // Deleted and created again: a new job.
      again.uid.push_back('+');
      engine.AddPending(again);
    }
  }
}

}  // namespace gpupool::engine::testing
