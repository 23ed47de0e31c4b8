// What a Philly replay shows: per-tenant waiting time and job completion time
// (mean, p50, p95), preemptions and GPU-hours lost to them, and cluster
// utilization over time, for each quota policy; as tables, JSON and SVG charts.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "gpupool/replay/cluster_sim.h"
#include "gpupool/replay/quotas.h"
#include "gpupool/replay/stats.h"

namespace gpupool::replay {

struct TenantStats {
  std::string tenant;
  int quota = 0;
  double average_demand = 0;
  size_t jobs = 0;
  size_t finished = 0;
  size_t never_started = 0;  // still waiting when the simulation ran out of events
  Summary wait_seconds;      // arrival to first start, jobs that started
  Summary jct_seconds;       // arrival to finish, jobs that finished
  size_t preemptions = 0;
  double gpu_hours_lost = 0;
  double gpu_hours_run = 0;  // including the lost ones
};

struct PolicyReport {
  QuotaPolicy policy = QuotaPolicy::kGuaranteed;
  std::string label;          // "static", "guaranteed", or with the victim policy
  double work_gpu_hours = 0;  // the trace's work: GPUs x duration over every job
  int cluster_gpus = 0;
  std::vector<TenantStats> tenants;
  TenantStats all;
  double utilization_percent = 0;  // average allocated / capacity, first to last arrival
  double makespan_hours = 0;
  size_t cycles = 0;
  double wall_seconds = 0;
  std::vector<double> waits;  // seconds, every started job
  // Per trace job, in trace order: its tenant, and its wait in seconds (-1: never started).
  std::vector<int> job_tenants;
  std::vector<double> job_waits;
  std::vector<std::pair<double, double>> daily_utilization;  // (day, percent)
};

PolicyReport SummarizePhilly(const SimOutcome& outcome, const std::vector<TenantQuota>& tenants,
                             const SimOptions& options, double wall_seconds);

void PrintPhillyTables(std::ostream& out, const std::vector<PolicyReport>& reports);
// The runs side by side: preemptions, GPU-hours lost (and their share of the
// trace's work), and every tenant's mean / p95 wait; tenants that wait longer under
// a guaranteed run than under the static one are named.
void PrintPhillyComparison(std::ostream& out, const std::vector<PolicyReport>& reports);
// Tenants whose mean wait under `run` is longer than under `baseline`, both taken over
// the tenant's jobs that both runs started (a job that never starts has no wait to
// compare: leaving it out of one run's mean only would flatter that run).
std::vector<std::string> TenantsWaitingLonger(const PolicyReport& baseline,
                                              const PolicyReport& run);
nlohmann::json PhillyJson(const std::vector<PolicyReport>& reports);
// utilization.svg (per day, every policy) and waiting-cdf.svg; returns the paths.
std::vector<std::string> WritePhillyCharts(const std::string& dir,
                                           const std::vector<PolicyReport>& reports);

}  // namespace gpupool::replay
