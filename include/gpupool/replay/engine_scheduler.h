// The simulation's scheduler backed by the gpupool engine. The engine keeps its
// own state between cycles (engine::Engine), so each cycle only reports what
// changed: jobs that arrived and jobs that finished since the last one.
//
// Philly on the engine: one queue over all nodes (Fixed for --policy static,
// Guaranteed for --policy guaranteed), one project per tenant with its quota in
// whole GPUs, over-quota weight 1, no limit; every job is a Train job of
// priority 0 (see JobOrder) whose replicas form one gang.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpupool/engine/engine.h"
#include "gpupool/replay/cluster_sim.h"

namespace gpupool::replay {

// The order in which waiting jobs start. kFewestGpus is a what-if: every job
// declares minus its GPU count as its priority, so the smallest start first
// (priorities then order admissions only: nothing preempts its own tenant's).
enum class JobOrder { kArrival, kFewestGpus };

const char* ToString(JobOrder order);

// How the engine chooses victims, and what jobs declare to it.
struct ReclaimSettings {
  engine::VictimPolicy victim_policy = engine::VictimPolicy::kLeastWorkLost;
  int64_t checkpoint_interval_seconds = 0;  // Declared by every job; 0: none.
  // The queue's reclaimWaitSeconds; above 0 every job also declares its trace
  // duration as its expected run time.
  int64_t reclaim_wait_seconds = 0;
  int64_t reclaim_max_runtime_seconds = 0;  // The queue's reclaimMaxRuntimeSeconds.
  int immediate_guarantee_percent = 50;     // The queue's immediateGuaranteePercent.
  JobOrder order = JobOrder::kArrival;
};

const char* ToString(engine::VictimPolicy policy);

class EngineScheduler : public Scheduler {
 public:
  // `full_cycle_interval_seconds`: engine::Options::full_cycle_interval_seconds.
  EngineScheduler(const ClusterShape& shape, const std::vector<TenantQuota>& tenants,
                  QuotaPolicy policy, int64_t min_runtime_seconds,
                  int64_t full_cycle_interval_seconds = 0, ReclaimSettings reclaim = {});

  CycleDecisions Decide(const ClusterView& view) override;

  size_t preemption_count() const { return preemptions_; }

 private:
  engine::PendingJob ToPending(const ClusterView& view, int64_t index) const;

  std::vector<std::string> tenant_names_;
  ReclaimSettings reclaim_;
  engine::Engine engine_;
  size_t preemptions_ = 0;
};

// The snapshot the scheduler starts from (exposed for tests and docs).
engine::Snapshot PhillySnapshot(const ClusterShape& shape, const std::vector<TenantQuota>& tenants,
                                QuotaPolicy policy, int64_t min_runtime_seconds,
                                const ReclaimSettings& reclaim = {});

}  // namespace gpupool::replay
