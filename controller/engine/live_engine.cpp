// The engine kept across cycles: each snapshot's differences from what the engine
// holds become engine updates. Order matters: jobs leave first (their devices are
// free before nodes change), then nodes, queues and projects change, then pending
// jobs arrive or change, and what was deleted goes last.
#include "gpupool/engine/live_engine.h"

#include <algorithm>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace gpupool::engine {
namespace {

bool Same(const Node& a, const Node& b) {
  return std::tie(a.labels, a.gpu_model, a.gpus, a.unmanaged_milli, a.unmanaged_gpus, a.cpu_milli,
                  a.memory_bytes, a.schedulable) ==
         std::tie(b.labels, b.gpu_model, b.gpus, b.unmanaged_milli, b.unmanaged_gpus, b.cpu_milli,
                  b.memory_bytes, b.schedulable);
}

bool Same(const Queue& a, const Queue& b) {
  return std::tie(a.node_selector, a.sharing, a.min_runtime_seconds, a.reclaim,
                  a.preempt_in_project) == std::tie(b.node_selector, b.sharing,
                                                    b.min_runtime_seconds, b.reclaim,
                                                    b.preempt_in_project);
}

auto QuotaFields(const ProjectQuota& q) {
  return std::tie(q.queue, q.gpu, q.limit, q.over_quota_weight, q.cpu_milli, q.memory_bytes);
}

bool Same(const Project& a, const Project& b) {
  return a.priority == b.priority &&
         std::equal(a.quotas.begin(), a.quotas.end(), b.quotas.begin(), b.quotas.end(),
                    [](const auto& x, const auto& y) { return QuotaFields(x) == QuotaFields(y); });
}

auto ShapeFields(const ReplicaShape& s) {
  return std::tie(s.gpu_milli, s.cpu_milli, s.memory_bytes);
}

bool Same(const PendingJob& a, const PendingJob& b) {
  return std::tie(a.uid, a.queue, a.project, a.workload_class, a.priority, a.replicas,
                  a.min_replicas, a.topology.mode, a.topology.key, a.node_selector, a.gpu_models,
                  a.arrival_time) == std::tie(b.uid, b.queue, b.project, b.workload_class,
                                              b.priority, b.replicas, b.min_replicas,
                                              b.topology.mode, b.topology.key, b.node_selector,
                                              b.gpu_models, b.arrival_time) &&
         ShapeFields(a.shape) == ShapeFields(b.shape);
}

bool SamePlacement(const ReplicaPlacement& a, const ReplicaPlacement& b) {
  if (a.node != b.node || a.devices.size() != b.devices.size()) return false;
  std::vector<int> x = a.devices, y = b.devices;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y;
}

// Whether the engine holds `held` exactly as the snapshot says the job runs.
bool Same(const RunningJob& held, const RunningJob& next) {
  return std::tie(held.uid, held.queue, held.project, held.workload_class, held.priority,
                  held.start_time, held.arrival_time, held.min_replicas, held.max_replicas,
                  held.terminating) == std::tie(next.uid, next.queue, next.project,
                                                next.workload_class, next.priority, next.start_time,
                                                next.arrival_time, next.min_replicas,
                                                next.max_replicas, next.terminating) &&
         ShapeFields(held.shape) == ShapeFields(next.shape) &&
         std::equal(held.replicas.begin(), held.replicas.end(), next.replicas.begin(),
                    next.replicas.end(), SamePlacement);
}

template <typename T>
std::unordered_map<std::string_view, const T*> ByName(const std::vector<T>& items) {
  std::unordered_map<std::string_view, const T*> index;
  index.reserve(items.size());
  for (const T& item : items) index.emplace(item.name, &item);
  return index;
}

template <typename T>
const T* Find(const std::unordered_map<std::string_view, const T*>& index, std::string_view name) {
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

// Calls `upsert` for items new or changed since `before`.
template <typename T, typename Upsert>
std::uint64_t UpsertChanged(const std::vector<T>& before, const std::vector<T>& after,
                            Upsert upsert) {
  const auto old = ByName(before);
  std::uint64_t count = 0;
  for (const T& item : after) {
    const T* was = Find(old, item.name);
    if (was && Same(*was, item)) continue;
    upsert(item);
    ++count;
  }
  return count;
}

// Calls `remove` for the names of `before` that `after` no longer has.
template <typename T, typename Remove>
std::uint64_t RemoveGone(const std::vector<T>& before, const std::vector<T>& after, Remove remove) {
  const auto now = ByName(after);
  std::uint64_t count = 0;
  for (const T& item : before) {
    if (Find(now, item.name)) continue;
    remove(item.name);
    ++count;
  }
  return count;
}

}  // namespace

LiveEngine::LiveEngine(Options options) : options_(std::move(options)) {}

void LiveEngine::Reset() { engine_.reset(); }

Snapshot LiveEngine::State() const { return engine_ ? engine_->ToSnapshot() : Snapshot{}; }

Decisions LiveEngine::Decide(const Snapshot& snapshot) {
  if (engine_ && Follow(snapshot)) {
    ++stats_.synced;
  } else {
    engine_.emplace(snapshot, options_);
    ++stats_.rebuilds;
  }
  config_.nodes = snapshot.nodes;
  config_.queues = snapshot.queues;
  config_.projects = snapshot.projects;
  return engine_->Decide();
}

bool LiveEngine::Follow(const Snapshot& next) {
  Engine& engine = *engine_;
  engine.SetNow(next.now);
  const Snapshot held = engine.ToSnapshot();
  const auto held_running = ByName(held.running);
  const auto held_pending = ByName(held.pending);
  const auto next_running = ByName(next.running);
  const auto next_pending = ByName(next.pending);
  // What runs must already run exactly so: the engine cannot start a job itself.
  for (const auto& job : next.running) {
    const RunningJob* was = Find(held_running, job.name);
    if (!was || !Same(*was, job)) return false;
  }
  std::uint64_t updates = 0;
  std::unordered_set<std::string_view> requeued;  // Held running, waiting again.
  for (const auto& job : held.running) {
    if (Find(next_running, job.name)) continue;
    const PendingJob* waits = Find(next_pending, job.name);
    if (waits && waits->uid == job.uid) {
      job.terminating ? engine.VictimGone(job.name) : engine.UndoAdmission(job.name);
      requeued.insert(job.name);
    } else {
      engine.Finish(job.name);
    }
    ++updates;
  }
  for (const auto& job : held.pending) {
    if (Find(next_pending, job.name)) continue;
    engine.Finish(job.name);
    ++updates;
  }
  updates +=
      UpsertChanged(config_.queues, next.queues, [&](const auto& q) { engine.UpsertQueue(q); });
  updates += UpsertChanged(config_.projects, next.projects,
                           [&](const auto& p) { engine.UpsertProject(p); });
  updates += UpsertChanged(config_.nodes, next.nodes, [&](const auto& n) { engine.UpsertNode(n); });
  for (const auto& job : next.pending) {
    const PendingJob* was = Find(held_pending, job.name);
    const bool again = requeued.count(job.name) > 0;
    if (was && !again && Same(*was, job)) continue;
    if (was && was->uid != job.uid) {
      engine.AddPending(job);  // Another job under the old name replaces it.
    } else {
      engine.UpsertPending(job);
    }
    ++updates;
  }
  updates += RemoveGone(config_.nodes, next.nodes, [&](const auto& n) { engine.RemoveNode(n); });
  updates +=
      RemoveGone(config_.projects, next.projects, [&](const auto& p) { engine.RemoveProject(p); });
  updates += RemoveGone(config_.queues, next.queues, [&](const auto& q) { engine.RemoveQueue(q); });
  stats_.updates += updates;
  return true;
}

}  // namespace gpupool::engine
