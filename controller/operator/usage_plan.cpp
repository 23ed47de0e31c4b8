// Cycle step 7: Queue, Project and Department statuses (docs/api.md) from the engine's
// accounting after this cycle's decisions, and a Ready condition that names
// what is wrong with an object gpupool cannot use.
#include <algorithm>

#include "cycle_state.h"

namespace gpupool::op::internal {
namespace {

// "1 GPU", "0.5 GPUs", "8 GPUs".
std::string Gpus(std::int64_t milli) {
  return json::FormatDecimal(milli) + (milli == 1000 ? " GPU" : " GPUs");
}

using json::Quantity;

struct JobCounts {
  std::int32_t running = 0, pending = 0;
};

// Running (holding) and pending jobs per "queue/project".
std::map<std::string, JobCounts> CountJobs(const CycleState& state) {
  std::map<std::string, JobCounts> counts;
  for (const JobRecord& job : state.jobs) {
    const std::string key = job.job().spec.queue + "/" + job.project;
    if (job.stage == Stage::kHolding) ++counts[key].running;
    if (job.stage == Stage::kWaiting) ++counts[key].pending;
  }
  return counts;
}

// A project's or a department's share in one queue.
template <typename Share>
api::GpuUsage UsageOf(const Share& share) {
  return {Quantity::FromMilli(share.quota), Quantity::FromMilli(share.allocated),
          Quantity::FromMilli(share.over_quota), Quantity::FromMilli(share.pending)};
}

// The GPUs of each valid queue's ready, schedulable nodes, summed once a cycle.
void SumQueueCapacities(CycleState& state) {
  for (const auto& [queue_name, queue] : state.queues) {
    CycleState::PoolGpus pool;
    for (const auto& [name, node] : state.nodes) {
      if (!node->ready || node->unschedulable || !InPool(queue->object, *node)) continue;
      pool.total_milli += node->gpus * 1000;
      pool.largest_node_milli = std::max(pool.largest_node_milli, node->gpus * 1000);
    }
    state.queue_pools[queue_name] = pool;
  }
}

// `queue`'s pool as SumQueueCapacities found it (none for an invalid queue).
CycleState::PoolGpus PoolOf(const CycleState& state, const api::Queue& queue) {
  const auto summed = state.queue_pools.find(queue.metadata.name);
  return summed == state.queue_pools.end() ? CycleState::PoolGpus{} : summed->second;
}

void NoteReady(CycleState& state, Kind kind, const api::ObjectMeta& meta,
               const std::vector<api::Condition>& before, std::vector<api::Condition>& after,
               const std::string& reason, const std::string& message) {
  const std::string status = reason == "Valid" ? "True" : "False";
  SetCondition(after, "Ready", status, reason, message, state.now, meta.generation);
  const api::Condition* old = api::FindCondition(before, "Ready");
  if (status == "False" && (!old || old->reason != reason || old->message != message))
    state.plan.events.push_back(
        {kind, "", meta.name, meta.uid, "Warning", reason, "Validate", message});
}

// Sets the Ready condition of `after` (an Event when it turns or stays False with a new
// reason), then plans its status write if the status changed from `before`'s.
template <typename Object>
void FinishStatus(CycleState& state, Kind kind, const Object& before, Object& after,
                  const std::string& reason, const std::string& message) {
  NoteReady(state, kind, after.metadata, before.status.conditions, after.status.conditions, reason,
            message);
  auto write = MakeStatusWrite(kind, before.metadata, api::ToJson(before).value("status", Json()),
                               api::ToJson(after).value("status", Json()));
  if (write) state.plan.other_statuses.push_back(std::move(*write));
}

// "; queue b selects 2 nodes of this pool too and is not in force", per such queue.
std::string LaterOverlaps(const CycleState& state, const std::string& queue) {
  std::string out;
  const auto overlaps = state.overlapping_queues.find(queue);
  if (overlaps == state.overlapping_queues.end()) return out;
  for (const std::string& other : overlaps->second) {
    const auto refused = state.refused_queues.find(other);
    if (refused == state.refused_queues.end() || refused->second.first != queue) continue;
    out += "; queue " + other + " selects " + CountNodes(refused->second.nodes.size()) +
           " of this pool too and is not in force";
  }
  return out;
}

void PlanQueue(CycleState& state, const QueueObject& source,
               const std::vector<engine::ProjectShare>& shares,
               const std::map<std::string, JobCounts>& counts) {
  api::Queue queue = source.object;
  queue.status.observed_generation = queue.metadata.generation;
  if (!source.errors.empty()) {
    return FinishStatus(state, Kind::kQueue, source.object, queue, "InvalidSpec",
                        json::JoinErrors(source.errors));
  }
  const std::string& name = queue.metadata.name;
  if (const std::string overlap = QueueOverlapMessage(state, name); !overlap.empty())
    return FinishStatus(state, Kind::kQueue, source.object, queue, kNodesOverlap, overlap);
  const CycleState::PoolGpus pool = PoolOf(state, queue);
  queue.status.capacity = Quantity::FromMilli(pool.total_milli);
  queue.status.largest_node = Quantity::FromMilli(pool.largest_node_milli);
  std::int64_t guaranteed = 0, allocated = 0, over_quota = 0;
  queue.status.projects.clear();
  queue.status.running_jobs = queue.status.pending_jobs = 0;
  for (const auto& share : shares) {
    if (share.queue != name) continue;
    guaranteed += share.quota;
    allocated += share.allocated;
    over_quota += share.over_quota;
    queue.status.projects.push_back({share.project, UsageOf(share)});
    auto count = counts.find(name + "/" + share.project);
    if (count == counts.end()) continue;
    queue.status.running_jobs += count->second.running;
    queue.status.pending_jobs += count->second.pending;
  }
  queue.status.guaranteed = Quantity::FromMilli(guaranteed);
  queue.status.allocated = Quantity::FromMilli(allocated);
  queue.status.over_quota = Quantity::FromMilli(over_quota);
  FinishStatus(state, Kind::kQueue, source.object, queue, "Valid",
               "the queue's pool has " + json::FormatDecimal(queue.status.capacity->milli) +
                   " GPUs on ready nodes" + LaterOverlaps(state, name));
}

// Why a valid project cannot be used as written, or "Valid".
std::pair<std::string, std::string> ProjectProblem(const CycleState& state,
                                                   const api::Project& project) {
  for (const auto& ns : project.spec.namespaces) {
    auto owner = state.project_of_namespace.find(ns);
    if (owner != state.project_of_namespace.end() && owner->second != project.metadata.name)
      return {kNamespaceConflict, "namespace \"" + ns + "\" already belongs to project " +
                                      owner->second + ", which claimed it first"};
  }
  const std::string& department = project.spec.department;
  if (!department.empty() && !state.departments.count(department))
    return {"UnknownDepartment", "spec.department: department \"" + department +
                                     "\" does not exist (its quotas stand on their own)"};
  for (std::size_t i = 0; i < project.spec.quotas.size(); ++i) {
    const auto& quota = project.spec.quotas[i];
    const std::string field = "spec.quotas[" + std::to_string(i) + "]";
    auto queue = state.queues.find(quota.queue);
    if (const std::string overlap = QueueOverlapMessage(state, quota.queue); !overlap.empty())
      return {"QueueNotInForce", field + ".queue: " + overlap};
    if (queue == state.queues.end())
      return {"UnknownQueue", field + ".queue: queue \"" + quota.queue + "\" does not exist"};
    const std::int64_t capacity = PoolOf(state, queue->second->object).total_milli;
    if (quota.gpu.milli > capacity)
      return {"QuotaExceedsCapacity", field + ".gpu: a quota of " + Gpus(quota.gpu.milli) +
                                          " is more than queue " + quota.queue + "'s capacity of " +
                                          Gpus(capacity)};
  }
  return {"Valid", "quotas are in force"};
}

// `shares`: the project's own, in the engine's order.
void PlanProject(CycleState& state, const ProjectObject& source,
                 const std::vector<const engine::ProjectShare*>& shares,
                 const std::map<std::string, JobCounts>& counts) {
  api::Project project = source.object;
  auto& status = project.status;
  status.observed_generation = project.metadata.generation;
  if (!source.errors.empty()) {
    return FinishStatus(state, Kind::kProject, source.object, project, "InvalidSpec",
                        json::JoinErrors(source.errors));
  }
  std::int64_t guaranteed = 0, allocated = 0, over = 0;
  // In a department, the guarantees in force (scaled into its quota) are the truth.
  const bool in_department = state.departments.count(project.spec.department) > 0;
  if (!in_department) {
    for (const auto& quota : project.spec.quotas) guaranteed += quota.gpu.milli;
  }
  status.queues.clear();
  for (const engine::ProjectShare* share : shares) {
    if (in_department) guaranteed += share->quota;
    allocated += share->allocated;
    over += share->over_quota;
    api::ProjectQueueUsage usage{share->queue, UsageOf(*share), 0, 0};
    auto count = counts.find(share->queue + "/" + share->project);
    if (count != counts.end()) {
      usage.running_jobs = count->second.running;
      usage.pending_jobs = count->second.pending;
    }
    status.queues.push_back(std::move(usage));
  }
  status.guaranteed = Quantity::FromMilli(guaranteed);
  status.allocated = Quantity::FromMilli(allocated);
  status.over_quota = Quantity::FromMilli(over);
  auto [reason, message] = ProjectProblem(state, project);
  FinishStatus(state, Kind::kProject, source.object, project, reason, message);
}

// The department's own quotas beside what its projects' quotas ask for in each
// queue: where they ask for more, each project is guaranteed the same fraction.
std::string DepartmentMessage(const CycleState& state, const api::Department& department) {
  std::string scaled;
  for (const auto& quota : department.spec.quotas) {
    std::int64_t asked = 0;
    for (const auto& [name, project] : state.projects) {
      if (project->object.spec.department != department.metadata.name) continue;
      if (const auto* own = project->object.spec.QuotaFor(quota.queue)) asked += own->gpu.milli;
    }
    if (asked <= quota.gpu.milli) continue;
    scaled += (scaled.empty() ? "" : "; ") + std::string("in queue ") + quota.queue +
              " its projects' quotas add up to " + json::FormatDecimal(asked) +
              " GPUs, above its " + json::FormatDecimal(quota.gpu.milli) +
              ": each is guaranteed that fraction of its own";
  }
  return scaled.empty() ? "quotas are in force" : scaled;
}

void PlanDepartment(CycleState& state, const DepartmentObject& source,
                    const std::vector<engine::DepartmentShare>& shares) {
  api::Department department = source.object;
  auto& status = department.status;
  status.observed_generation = department.metadata.generation;
  if (!source.errors.empty()) {
    return FinishStatus(state, Kind::kDepartment, source.object, department, "InvalidSpec",
                        json::JoinErrors(source.errors));
  }
  const std::string& name = department.metadata.name;
  std::int64_t guaranteed = 0, allocated = 0, over = 0;
  status.queues.clear();
  for (const auto& share : shares) {
    if (share.department != name) continue;
    guaranteed += share.quota;
    allocated += share.allocated;
    over += share.over_quota;
    status.queues.push_back({share.queue, UsageOf(share)});
  }
  status.projects.clear();
  for (const auto& [project, object] : state.projects) {
    if (object->object.spec.department == name) status.projects.push_back(project);
  }
  status.guaranteed = Quantity::FromMilli(guaranteed);
  status.allocated = Quantity::FromMilli(allocated);
  status.over_quota = Quantity::FromMilli(over);
  FinishStatus(state, Kind::kDepartment, source.object, department, "Valid",
               DepartmentMessage(state, department));
}

}  // namespace

void PlanUsageStatuses(CycleState& state, const engine::Decisions& decisions) {
  const auto counts = CountJobs(state);
  SumQueueCapacities(state);
  for (const auto& queue : state.view.queues) PlanQueue(state, *queue, decisions.shares, counts);
  std::map<std::string, std::vector<const engine::ProjectShare*>> shares_of_project;
  for (const auto& share : decisions.shares) shares_of_project[share.project].push_back(&share);
  for (const auto& project : state.view.projects)
    PlanProject(state, *project, shares_of_project[project->object.metadata.name], counts);
  for (const auto& department : state.view.departments)
    PlanDepartment(state, *department, decisions.department_shares);
}

}  // namespace gpupool::op::internal
