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
  return std::tie(a.node_selector, a.sharing, a.min_runtime_seconds, a.reclaim_wait_seconds,
                  a.reclaim_max_runtime_seconds, a.immediate_guarantee_percent, a.reclaim,
                  a.preempt_in_project) ==
         std::tie(b.node_selector, b.sharing, b.min_runtime_seconds, b.reclaim_wait_seconds,
                  b.reclaim_max_runtime_seconds, b.immediate_guarantee_percent, b.reclaim,
                  b.preempt_in_project);
}

auto QuotaFields(const ProjectQuota& q) {
  return std::tie(q.queue, q.gpu, q.limit, q.over_quota_weight, q.cpu_milli, q.memory_bytes);
}

bool Same(const Project& a, const Project& b) {
  return a.priority == b.priority && a.department == b.department &&
         std::equal(a.quotas.begin(), a.quotas.end(), b.quotas.begin(), b.quotas.end(),
                    [](const auto& x, const auto& y) { return QuotaFields(x) == QuotaFields(y); });
}

auto QuotaFields(const DepartmentQuota& q) {
  return std::tie(q.queue, q.gpu, q.limit, q.over_quota_weight);
}

bool Same(const Department& a, const Department& b) {
  return std::equal(a.quotas.begin(), a.quotas.end(), b.quotas.begin(), b.quotas.end(),
                    [](const auto& x, const auto& y) { return QuotaFields(x) == QuotaFields(y); });
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

Snapshot LiveEngine::State() const { return engine_ ? engine_->ToSnapshot() : Snapshot{}; }

Decisions LiveEngine::Decide(const Snapshot& snapshot) {
  if (engine_ && Follow(snapshot)) {
    ++stats_.synced;
  } else {
    misstated_.clear();
    engine_.emplace(snapshot, options_);
    ++stats_.rebuilds;
  }
  config_.nodes = snapshot.nodes;
  config_.queues = snapshot.queues;
  config_.projects = snapshot.projects;
  config_.departments = snapshot.departments;
  Decisions decisions = engine_->Decide();
  RestateStanding(decisions);
  return decisions;
}

void LiveEngine::RestateStanding(Decisions& decisions) const {
  if (misstated_.empty()) return;
  std::unordered_set<std::string_view> listed;
  for (const Standing& s : decisions.standing) listed.insert(s.job);
  for (const std::string& job : misstated_) {
    if (listed.count(job) || !engine_->Runs(job)) continue;
    decisions.standing.push_back({job, engine_->ShownOverQuota(job)});
  }
  std::sort(decisions.standing.begin(), decisions.standing.end(),
            [](const Standing& a, const Standing& b) { return a.job < b.job; });
}

// What leaves the engine before anything else changes: jobs the snapshot no longer
// has (finished, deleted), and held jobs it says wait again (an admission whose
// write failed, a requeue, a victim whose pods are gone). Returns the latter.
std::unordered_set<std::string> LiveEngine::LeaveFinished(const Snapshot& next) {
  const auto next_running = ByName(next.running);
  const auto next_pending = ByName(next.pending);
  enum class Exit { kFinish, kUndo, kVictimGone };
  std::vector<std::pair<std::string, Exit>> exits;
  engine_->ForEachJob([&](const Engine::HeldJob& job) {
    if (job.held == Engine::Held::kPending) {
      if (!Find(next_pending, job.name)) exits.emplace_back(job.name, Exit::kFinish);
      return;
    }
    if (Find(next_running, job.name)) return;
    const PendingJob* waits = Find(next_pending, job.name);
    if (!waits || waits->uid != job.uid) {
      exits.emplace_back(job.name, Exit::kFinish);
    } else {
      exits.emplace_back(job.name,
                         job.held == Engine::Held::kTerminating ? Exit::kVictimGone : Exit::kUndo);
    }
  });
  std::unordered_set<std::string> requeued;
  for (const auto& [name, exit] : exits) {
    if (exit == Exit::kFinish) {
      engine_->Finish(name);
      continue;
    }
    exit == Exit::kVictimGone ? engine_->VictimGone(name) : engine_->UndoAdmission(name);
    requeued.insert(name);
  }
  stats_.updates += exits.size();
  return requeued;
}

bool LiveEngine::Follow(const Snapshot& next) {
  Engine& engine = *engine_;
  engine.SetNow(next.now);
  // What runs must already run exactly so: the engine cannot start a job itself.
  misstated_.clear();
  for (const auto& job : next.running) {
    if (!engine.HoldsExactly(job)) return false;
    if (job.over_quota && *job.over_quota != engine.ShownOverQuota(job.name))
      misstated_.push_back(job.name);
  }
  const std::unordered_set<std::string> requeued = LeaveFinished(next);
  std::uint64_t updates = 0;
  updates +=
      UpsertChanged(config_.queues, next.queues, [&](const auto& q) { engine.UpsertQueue(q); });
  // Departments before projects: a project's department is known when it arrives.
  updates += UpsertChanged(config_.departments, next.departments,
                           [&](const auto& d) { engine.UpsertDepartment(d); });
  updates += UpsertChanged(config_.projects, next.projects,
                           [&](const auto& p) { engine.UpsertProject(p); });
  updates += UpsertChanged(config_.nodes, next.nodes, [&](const auto& n) { engine.UpsertNode(n); });
  for (const auto& job : next.pending) {
    if (!requeued.count(job.name) && engine.HoldsExactly(job)) continue;
    engine.UpsertPending(job);  // New, changed, or another job under the old name.
    ++updates;
  }
  updates += RemoveGone(config_.nodes, next.nodes, [&](const auto& n) { engine.RemoveNode(n); });
  updates +=
      RemoveGone(config_.projects, next.projects, [&](const auto& p) { engine.RemoveProject(p); });
  updates += RemoveGone(config_.departments, next.departments,
                        [&](const auto& d) { engine.RemoveDepartment(d); });
  updates += RemoveGone(config_.queues, next.queues, [&](const auto& q) { engine.RemoveQueue(q); });
  stats_.updates += updates;
  return true;
}

}  // namespace gpupool::engine
