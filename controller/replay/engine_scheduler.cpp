#include "gpupool/replay/engine_scheduler.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace gpupool::replay {
namespace {

constexpr char kPhillyQueue[] = "philly";
// Under the pooled reference every job belongs to this one project, whose quota is
// the whole cluster.
constexpr char kPoolProject[] = "pool";
// Philly jobs ask only for GPUs: nodes get CPU and memory nothing can exhaust.
constexpr engine::MilliCpu kNodeCpu = int64_t{1} << 40;
constexpr engine::Bytes kNodeMemory = int64_t{1} << 50;

// Engine names are the decimal job and node indices, so decisions map back
// without a lookup table.
int64_t IndexOf(const std::string& name, const char* what) {
  int64_t index = -1;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), index);
  if (error != std::errc() || end != name.data() + name.size()) {
    throw std::logic_error(std::string("engine returned an unknown ") + what + " \"" + name + "\"");
  }
  return index;
}

engine::Options EngineOptions(int64_t full_cycle_interval_seconds,
                              engine::VictimPolicy victim_policy) {
  engine::Options options;
  options.full_cycle_interval_seconds = full_cycle_interval_seconds;
  options.victim_policy = victim_policy;
  return options;
}

}  // namespace

const char* ToString(engine::VictimPolicy policy) {
  return policy == engine::VictimPolicy::kFewestVictims ? "fewest-victims" : "least-work-lost";
}

const char* ToString(JobOrder order) {
  return order == JobOrder::kFewestGpus ? "fewest-gpus" : "arrival";
}

engine::Snapshot PhillySnapshot(const ClusterShape& shape, const std::vector<TenantQuota>& tenants,
                                QuotaPolicy policy, int64_t min_runtime_seconds,
                                const ReclaimSettings& reclaim) {
  engine::Snapshot snapshot;
  for (int n = 0; n < shape.nodes; ++n) {
    engine::Node node;
    node.name = std::to_string(n);
    node.gpus = shape.gpus_per_node;
    node.cpu_milli = kNodeCpu;
    node.memory_bytes = kNodeMemory;
    snapshot.nodes.push_back(std::move(node));
  }
  engine::Queue queue;
  queue.name = kPhillyQueue;
  queue.sharing =
      policy == QuotaPolicy::kGuaranteed ? engine::Sharing::kGuaranteed : engine::Sharing::kFixed;
  queue.min_runtime_seconds = min_runtime_seconds;
  queue.reclaim_wait_seconds = reclaim.reclaim_wait_seconds;
  queue.reclaim_max_runtime_seconds = reclaim.reclaim_max_runtime_seconds;
  queue.immediate_guarantee_percent = reclaim.immediate_guarantee_percent;
  queue.preempt_in_project = reclaim.order == JobOrder::kArrival;
  snapshot.queues.push_back(queue);
  if (policy == QuotaPolicy::kPooled) {
    const engine::ProjectQuota whole_cluster{kPhillyQueue,
                                             int64_t{shape.TotalGpus()} * engine::kMilliPerGpu};
    snapshot.projects.push_back({kPoolProject, 0, {whole_cluster}});
    return snapshot;
  }
  for (const auto& tenant : tenants) {
    engine::ProjectQuota quota;
    quota.queue = kPhillyQueue;
    quota.gpu = int64_t{tenant.quota} * engine::kMilliPerGpu;
    snapshot.projects.push_back({tenant.tenant, 0, {quota}});
  }
  return snapshot;
}

EngineScheduler::EngineScheduler(const ClusterShape& shape, const std::vector<TenantQuota>& tenants,
                                 QuotaPolicy policy, int64_t min_runtime_seconds,
                                 int64_t full_cycle_interval_seconds, ReclaimSettings reclaim)
    : reclaim_(reclaim),
      engine_(PhillySnapshot(shape, tenants, policy, min_runtime_seconds, reclaim),
              EngineOptions(full_cycle_interval_seconds, reclaim.victim_policy)) {
  for (const auto& tenant : tenants) {
    tenant_names_.push_back(policy == QuotaPolicy::kPooled ? kPoolProject : tenant.tenant);
  }
}

engine::PendingJob EngineScheduler::ToPending(const ClusterView& view, int64_t index) const {
  const SimJob& job = (*view.jobs)[index];
  engine::PendingJob pending;
  pending.name = std::to_string(index);
  pending.queue = kPhillyQueue;
  pending.project = tenant_names_.at(job.tenant);
  pending.replicas = job.replicas;
  pending.min_replicas = job.replicas;
  pending.shape.gpu_milli = int64_t{job.gpus_per_replica} * engine::kMilliPerGpu;
  pending.arrival_time = static_cast<engine::Seconds>(std::floor(job.trace->arrival));
  pending.checkpoint_interval_seconds = reclaim_.checkpoint_interval_seconds;
  if (reclaim_.order == JobOrder::kFewestGpus)
    pending.priority = -job.replicas * job.gpus_per_replica;
  if (reclaim_.reclaim_wait_seconds > 0) {
    pending.expected_runtime_seconds =
        std::max<engine::Seconds>(1, static_cast<engine::Seconds>(std::ceil(job.trace->duration)));
  }
  return pending;
}

CycleDecisions EngineScheduler::Decide(const ClusterView& view) {
  engine_.SetNow(static_cast<engine::Seconds>(std::floor(view.now)));
  for (int64_t index : *view.finished) {
    if (!engine_.Finish(std::to_string(index))) {
      throw std::logic_error("engine does not know finished job " + std::to_string(index));
    }
  }
  for (int64_t index : *view.arrived) engine_.AddPending(ToPending(view, index));
  const engine::Decisions decisions = engine_.Decide();
  CycleDecisions result;
  for (const auto& preemption : decisions.preemptions) {
    result.preempt.push_back(IndexOf(preemption.victim, "victim"));
    // The simulation stops a victim at once: it waits again from the next cycle.
    engine_.VictimGone(preemption.victim);
  }
  preemptions_ += decisions.preemptions.size();
  for (const auto& admission : decisions.admissions) {
    StartDecision start{IndexOf(admission.job, "job")};
    for (const auto& replica : admission.replicas) {
      start.nodes.push_back(static_cast<int>(IndexOf(replica.node, "node")));
    }
    result.start.push_back(std::move(start));
  }
  return result;
}

}  // namespace gpupool::replay
