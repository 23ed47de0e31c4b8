// Cycle step 3: the engine's snapshot. Holding jobs run on the placement their
// status records (the API server is the memory of every decision); waiting
// jobs that may start are pending; pods gpupool does not manage are counted per
// node. Two holding jobs that claim one device cannot both be right: the later
// admitted one goes back to its queue.
#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "cycle_state.h"
#include "gpupool/json/reader.h"

namespace gpupool::op::internal {
namespace {

using engine::kMilliPerGpu;

engine::WorkloadClass ClassOf(api::WorkloadClass workload_class) {
  switch (workload_class) {
    case api::WorkloadClass::kBuild:
      return engine::WorkloadClass::kBuild;
    case api::WorkloadClass::kInference:
      return engine::WorkloadClass::kInference;
    default:
      return engine::WorkloadClass::kTrain;
  }
}

std::string GpuModel(const NodeObject& node) {
  for (const char* key : {"nvidia.com/gpu.product", "gpu"}) {
    auto it = node.labels.find(key);
    if (it != node.labels.end()) return it->second;
  }
  return "";
}

void AddQueuesAndProjects(const CycleState& state, engine::Snapshot& snapshot) {
  for (const auto& [name, queue] : state.queues) {
    const auto& spec = queue->object.spec;
    engine::Queue out;
    out.name = name;
    out.node_selector = {spec.node_selector.begin(), spec.node_selector.end()};
    out.sharing = spec.sharing == api::Sharing::kFixed ? engine::Sharing::kFixed
                                                       : engine::Sharing::kGuaranteed;
    out.min_runtime_seconds = spec.preemption.min_runtime_seconds;
    out.reclaim_wait_seconds = spec.preemption.reclaim_wait_seconds;
    out.reclaim_max_runtime_seconds = spec.preemption.reclaim_max_runtime_seconds;
    out.immediate_guarantee_percent = spec.preemption.immediate_guarantee_percent;
    snapshot.queues.push_back(std::move(out));
  }
  for (const auto& [name, project] : state.projects) {
    engine::Project out;
    out.name = name;
    out.priority = project->object.spec.priority;
    out.department = project->object.spec.department;
    for (const auto& quota : project->object.spec.quotas) {
      engine::ProjectQuota q;
      q.queue = quota.queue;
      q.gpu = quota.gpu.milli;
      q.limit = quota.limit ? quota.limit->milli : -1;
      q.over_quota_weight = quota.over_quota_weight;
      q.cpu_milli = quota.cpu ? quota.cpu->milli : -1;
      q.memory_bytes = quota.memory ? quota.memory->milli / 1000 : -1;
      out.quotas.push_back(std::move(q));
    }
    snapshot.projects.push_back(std::move(out));
  }
  for (const auto& [name, department] : state.departments) {
    engine::Department out{name, {}};
    for (const auto& quota : department->object.spec.quotas) {
      out.quotas.push_back({quota.queue, quota.gpu.milli, quota.limit ? quota.limit->milli : -1,
                            quota.over_quota_weight});
    }
    snapshot.departments.push_back(std::move(out));
  }
}

// Per node and device, the milli-GPUs holding jobs use; every node has an entry.
using DeviceUse = std::unordered_map<std::string, std::vector<std::int64_t>>;

bool FitsDevices(const DeviceUse& use, const api::TrainingJobStatus& status,
                 std::int64_t per_replica) {
  for (const auto& placed : status.placement) {
    auto node = use.find(placed.node);
    if (node == use.end()) return false;
    const auto& devices = node->second;
    const bool whole = per_replica >= kMilliPerGpu;
    if (whole && placed.devices.size() * kMilliPerGpu != static_cast<std::size_t>(per_replica))
      return false;
    if (!whole && placed.devices.size() != 1) return false;
    for (int device : placed.devices) {
      if (device < 0 || static_cast<std::size_t>(device) >= devices.size()) return false;
      const std::int64_t need = whole ? kMilliPerGpu : per_replica;
      if (devices[static_cast<std::size_t>(device)] + need > kMilliPerGpu) return false;
    }
  }
  return true;
}

void TakeDevices(DeviceUse& use, const api::TrainingJobStatus& status, std::int64_t per_replica) {
  const std::int64_t each = per_replica >= kMilliPerGpu ? kMilliPerGpu : per_replica;
  for (const auto& placed : status.placement)
    for (int device : placed.devices) use[placed.node][static_cast<std::size_t>(device)] += each;
}

// The fields running and pending jobs share: who the job is, whose, and its shape.
template <typename EngineJob>
EngineJob WithIdentity(const JobRecord& job) {
  const auto& spec = job.job().spec;
  EngineJob out;
  out.name = job.key;
  out.uid = job.job().metadata.uid;
  out.queue = spec.queue;
  out.project = job.project;
  out.workload_class = ClassOf(spec.workload_class);
  out.priority = spec.priority;
  out.shape = {spec.gpus_per_replica.milli, job.source->requests.cpu_milli,
               job.source->requests.memory_bytes};
  return out;
}

engine::RunningJob RunningFrom(const JobRecord& job, engine::Seconds admitted) {
  const auto& spec = job.job().spec;
  auto out = WithIdentity<engine::RunningJob>(job);
  out.start_time = admitted;
  out.arrival_time = ParseTime(job.status.queued_time.value_or("")).value_or(0);
  for (const auto& placed : job.status.placement)
    out.replicas.push_back({placed.node, {placed.devices.begin(), placed.devices.end()}});
  out.min_replicas = spec.EffectiveMinReplicas();
  out.max_replicas = spec.replicas;
  out.checkpoint_interval_seconds = spec.checkpoint_interval_seconds.value_or(0);
  out.saves_on_preemption = spec.checkpoint && spec.checkpoint->on_preemption;
  out.expected_runtime_seconds = spec.expected_runtime_seconds.value_or(0);
  out.over_quota = job.status.over_quota;
  return out;
}

// A holding job with its admission time read once: the sort compares numbers,
// and names only between jobs admitted in the same second.
struct Holding {
  engine::Seconds admitted;
  JobRecord* job;
};

std::vector<Holding> HoldingByAdmission(CycleState& state) {
  std::vector<Holding> holding;
  for (JobRecord& job : state.jobs) {
    if (job.stage != Stage::kHolding) continue;
    holding.push_back({ParseTime(job.status.admitted_time.value_or("")).value_or(0), &job});
  }
  // A pod group's record is on its pods, which their owner may write; a
  // TrainingJob's is in its status, which only gpupool writes. Of two records
  // claiming one device, the TrainingJob's is kept, whatever the other claims.
  std::sort(holding.begin(), holding.end(), [](const Holding& a, const Holding& b) {
    return std::tie(a.job->pod_group, a.admitted, a.job->key) <
           std::tie(b.job->pod_group, b.admitted, b.job->key);
  });
  return holding;
}

// Holding jobs in admission order (TrainingJobs first, then by second, then by name); a job whose
// devices are taken already, or whose queue or project is gone, goes back to its queue.
void AddRunning(CycleState& state, engine::Snapshot& snapshot, DeviceUse& use) {
  for (const auto& [admitted, job] : HoldingByAdmission(state)) {
    const auto& spec = job->job().spec;
    if (const std::string overlap = QueueOverlapMessage(state, spec.queue); !overlap.empty()) {
      Requeue(state, *job, api::JobPhase::kQueued, "QueueNotInForce", overlap);
      continue;
    }
    if (!state.queues.count(spec.queue)) {
      Requeue(state, *job, api::JobPhase::kQueued, "QueueDeleted",
              "queue " + spec.queue + " no longer exists");
      continue;
    }
    if (!FitsDevices(use, job->status, spec.gpus_per_replica.milli)) {
      Requeue(state, *job, api::JobPhase::kQueued, "PlacementConflict",
              "its recorded placement overlaps another job's or no longer exists");
      state.Event(*job, "Warning", "PlacementConflict", "Requeue",
                  "its recorded placement overlaps another job's or no longer exists");
      continue;
    }
    TakeDevices(use, job->status, spec.gpus_per_replica.milli);
    snapshot.running.push_back(RunningFrom(*job, admitted));
  }
}

engine::PendingJob PendingFrom(const JobRecord& job) {
  const auto& spec = job.job().spec;
  auto out = WithIdentity<engine::PendingJob>(job);
  out.replicas = spec.replicas;
  out.min_replicas = spec.EffectiveMinReplicas();
  if (spec.topology) {
    out.topology.key = spec.topology->key;
    out.topology.mode = spec.topology->mode == api::TopologyMode::kRequired
                            ? engine::TopologyMode::kRequired
                            : engine::TopologyMode::kPreferred;
  }
  // Read in place: a waiting job's selector is read every cycle.
  const Json* selector = json::Member(json::Member(&spec.pod_template, "spec"), "nodeSelector");
  if (selector && selector->is_object()) {
    for (const auto& [key, value] : selector->items())
      if (value.is_string()) out.node_selector[key] = value.get<std::string>();
  }
  out.arrival_time = ParseTime(job.status.queued_time.value_or("")).value_or(0);
  out.checkpoint_interval_seconds = spec.checkpoint_interval_seconds.value_or(0);
  out.saves_on_preemption = spec.checkpoint && spec.checkpoint->on_preemption;
  out.expected_runtime_seconds = spec.expected_runtime_seconds.value_or(0);
  return out;
}

// Unmanaged use is a count per node: the API does not say which devices those
// pods hold, and the engine needs only how many. It never covers devices holding
// jobs are recorded on (those pods were there first; the scheduler binds no pod
// to a device that is taken).
void AddNodes(const CycleState& state, engine::Snapshot& snapshot, const DeviceUse& use) {
  for (const auto& [name, node] : state.nodes) {
    engine::Node out;
    out.name = name;
    out.labels = {node->labels.begin(), node->labels.end()};
    out.gpu_model = GpuModel(*node);
    out.gpus = static_cast<int>(std::clamp<std::int64_t>(node->gpus, 0, 64));
    out.cpu_milli = node->cpu_milli;
    out.memory_bytes = node->memory_bytes;
    out.schedulable = node->ready && !node->unschedulable;
    auto physical = state.node_use.find(name);
    if (physical != state.node_use.end()) {
      const std::int64_t whole =
          (physical->second.unmanaged_milli + kMilliPerGpu - 1) / kMilliPerGpu;
      const auto& devices = use.at(name);
      const auto taken = std::count_if(devices.begin(), devices.end(),
                                       [](std::int64_t milli) { return milli > 0; });
      out.unmanaged_gpus = static_cast<int>(std::min<std::int64_t>(whole, out.gpus - taken));
    }
    snapshot.nodes.push_back(std::move(out));
  }
}

}  // namespace

engine::Snapshot BuildSnapshot(CycleState& state) {
  engine::Snapshot snapshot;
  snapshot.now = state.now;
  AddQueuesAndProjects(state, snapshot);
  DeviceUse use;
  use.reserve(state.nodes.size());
  for (const auto& [name, node] : state.nodes)
    use[name].assign(static_cast<std::size_t>(std::clamp<std::int64_t>(node->gpus, 0, 64)), 0);
  AddRunning(state, snapshot, use);
  AddNodes(state, snapshot, use);
  for (const JobRecord& job : state.jobs)
    if (job.stage == Stage::kWaiting && job.eligible) snapshot.pending.push_back(PendingFrom(job));
  return snapshot;
}

}  // namespace gpupool::op::internal
