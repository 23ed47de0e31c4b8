// The flags of `gpupool replay`, parsed and checked in one place so the
// command and its tests agree on every default and every error message.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpupool/engine/engine.h"
#include "gpupool/replay/cluster_sim.h"
#include "gpupool/replay/engine_scheduler.h"

namespace gpupool::replay {

// A bad flag or value; what() names the flag, e.g. `--nodes: expected a positive
// integer, got "x"`.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

enum class TraceKind { kPhilly, kAlibaba };

struct ReplayOptions {
  bool help = false;
  TraceKind trace = TraceKind::kPhilly;
  std::string trace_dir;  // empty: TraceDir()
  bool json = false;
  std::string svg_dir;  // empty: no charts
  // Philly
  std::vector<QuotaPolicy> policies = {QuotaPolicy::kStatic, QuotaPolicy::kGuaranteed};
  ClusterShape shape;
  int64_t max_jobs = -1;  // -1: every job
  double cycle_seconds = 60;
  int64_t min_runtime_seconds = 0;
  int64_t full_cycle_interval_seconds = 0;  // engine::Options; 0: every cycle full
  // Guaranteed runs, one per victim policy (static quotas preempt nothing).
  std::vector<engine::VictimPolicy> victim_policies = {engine::VictimPolicy::kLeastWorkLost};
  int64_t checkpoint_interval_seconds = 0;  // every job's; 0: restart from zero
  int64_t reclaim_wait_seconds = 0;         // the queue's reclaimWaitSeconds
  int64_t reclaim_max_runtime_seconds = 0;  // the queue's reclaimMaxRuntimeSeconds
  int immediate_guarantee_percent = 50;     // the queue's immediateGuaranteePercent
  JobOrder order = JobOrder::kArrival;      // which waiting job starts first
  // Capacity sweep: cluster sizes in nodes (empty: one run at shape.nodes), and
  // the mean waits to find the GPUs for.
  std::vector<int> sweep_nodes;
  std::vector<double> sweep_wait_hours = {1, 6};
  // Alibaba
  std::string pod_list = "openb_pod_list_default.csv";
  uint64_t seed = 42;
  double arrive_percent = 130;
};

// The text `gpupool replay --help` prints: every flag with its default.
extern const char kReplayUsage[];

// Throws UsageError for unknown flags, missing or malformed values.
ReplayOptions ParseReplayArgs(std::span<const std::string> args);

}  // namespace gpupool::replay
