#include "gpupool/replay/runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>

#include "capacity_sweep.h"
#include "csv.h"
#include "engine_placer.h"
#include "frag_report.h"
#include "gpupool/replay/engine_scheduler.h"
#include "gpupool/replay/traces.h"
#include "philly_report.h"

namespace gpupool::replay {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string Dir(const ReplayOptions& options) {
  return options.trace_dir.empty() ? TraceDir() : options.trace_dir;
}

void PrintQuotas(std::ostream& out, const std::vector<TenantQuota>& tenants,
                 const ReplayOptions& options, size_t jobs) {
  char line[160];
  std::snprintf(line, sizeof line,
                "Philly replay: %zu jobs, %d nodes x %d GPUs = %d GPUs, cycle %.0f s, order %s\n"
                "tenant    jobs  avg demand (GPUs)  quota (GPUs)\n",
                jobs, options.shape.nodes, options.shape.gpus_per_node, options.shape.TotalGpus(),
                options.cycle_seconds, ToString(options.order));
  out << line;
  for (const auto& tenant : tenants) {
    std::snprintf(line, sizeof line, "%-8s %6zu %18.1f %13d\n", tenant.tenant.c_str(), tenant.jobs,
                  tenant.average_demand, tenant.quota);
    out << line;
  }
}

nlohmann::json QuotasJson(const std::vector<TenantQuota>& tenants) {
  nlohmann::json quotas = nlohmann::json::array();
  for (const auto& t : tenants) {
    quotas.push_back({{"tenant", t.tenant},
                      {"jobs", t.jobs},
                      {"average_demand_gpus", t.average_demand},
                      {"quota_gpus", t.quota}});
  }
  return quotas;
}

// One simulation: a quota policy and, for guaranteed quotas, a victim policy.
struct PhillyRun {
  QuotaPolicy policy;
  engine::VictimPolicy victim_policy;
  std::string label;
};

std::vector<PhillyRun> PhillyRuns(const ReplayOptions& options) {
  std::vector<PhillyRun> runs;
  for (QuotaPolicy policy : options.policies) {
    if (policy != QuotaPolicy::kGuaranteed) {  // Nothing is preempted: no victim policy.
      runs.push_back({policy, engine::VictimPolicy::kLeastWorkLost, ToString(policy)});
      continue;
    }
    for (engine::VictimPolicy victim : options.victim_policies) {
      std::string label = ToString(policy);
      if (options.victim_policies.size() > 1) label += std::string("/") + ToString(victim);
      runs.push_back({policy, victim, label});
    }
  }
  return runs;
}

// The runs are independent simulations: each runs on its own thread.
std::vector<PolicyReport> RunPhillyAt(const std::vector<PhillyJob>& trace,
                                      const ReplayOptions& options, const ClusterShape& shape) {
  const auto tenants = ProportionalQuotas(trace, shape.TotalGpus());
  std::vector<std::future<PolicyReport>> runs;
  for (const PhillyRun& run : PhillyRuns(options)) {
    runs.push_back(std::async(std::launch::async, [&, run] {
      SimOptions sim{run.policy, shape, options.cycle_seconds};
      sim.checkpoint_interval_seconds = static_cast<double>(options.checkpoint_interval_seconds);
      const ReclaimSettings reclaim{run.victim_policy,
                                    options.checkpoint_interval_seconds,
                                    options.reclaim_wait_seconds,
                                    options.reclaim_max_runtime_seconds,
                                    options.immediate_guarantee_percent,
                                    options.order};
      EngineScheduler scheduler(shape, tenants, run.policy, options.min_runtime_seconds,
                                options.full_cycle_interval_seconds, reclaim);
      const auto policy_started = std::chrono::steady_clock::now();
      const auto outcome = RunClusterSimulation(trace, tenants, sim, scheduler);
      PolicyReport report = SummarizePhilly(outcome, tenants, sim, SecondsSince(policy_started));
      report.label = run.label;
      return report;
    }));
  }
  std::vector<PolicyReport> reports;
  for (auto& run : runs) reports.push_back(run.get());
  return reports;
}

std::vector<PhillyJob> LoadPhilly(const ReplayOptions& options) {
  auto trace = LoadPhillyTrace(Dir(options) + "/philly-vc/philly.csv");
  if (options.max_jobs > 0 && int64_t(trace.size()) > options.max_jobs) {
    trace.resize(options.max_jobs);
  }
  return trace;
}

int RunPhillySweep(const ReplayOptions& options, std::ostream& out) {
  const auto started = std::chrono::steady_clock::now();
  const auto trace = LoadPhilly(options);
  SweepResult sweep;
  sweep.wait_targets_hours = options.sweep_wait_hours;
  for (int nodes : options.sweep_nodes) {
    ClusterShape shape = options.shape;
    shape.nodes = nodes;
    sweep.gpus.push_back(shape.TotalGpus());
    const auto reports = RunPhillyAt(trace, options, shape);
    if (sweep.series.empty()) {
      for (const auto& report : reports) sweep.series.push_back({report.label, {}, {}});
    }
    for (size_t i = 0; i < reports.size(); ++i) {
      const PolicyReport& r = reports[i];
      sweep.series[i].mean_wait_hours.push_back(r.all.wait_seconds.mean / 3600);
      sweep.series[i].lost_percent.push_back(100.0 * r.all.gpu_hours_lost /
                                             std::max(r.work_gpu_hours, 1e-9));
    }
    if (!options.json) {
      out << "swept " << shape.TotalGpus() << " GPUs (" << SecondsSince(started) << " s)\n";
      PrintPhillyComparison(out, reports);
    }
  }
  std::string chart;
  if (!options.svg_dir.empty()) chart = WriteSweepChart(options.svg_dir, sweep);
  if (options.json) {
    auto json = SweepJson(sweep);
    json["jobs"] = trace.size();
    json["gpus_per_node"] = options.shape.gpus_per_node;
    json["chart"] = chart;
    json["wall_seconds"] = SecondsSince(started);
    out << json.dump(2) << "\n";
    return 0;
  }
  PrintSweep(out, sweep);
  if (!chart.empty()) out << "wrote " << chart << "\n";
  return 0;
}

int RunPhilly(const ReplayOptions& options, std::ostream& out) {
  if (!options.sweep_nodes.empty()) return RunPhillySweep(options, out);
  const auto started = std::chrono::steady_clock::now();
  const auto trace = LoadPhilly(options);
  const auto tenants = ProportionalQuotas(trace, options.shape.TotalGpus());
  const std::vector<PolicyReport> reports = RunPhillyAt(trace, options, options.shape);
  std::vector<std::string> charts;
  if (!options.svg_dir.empty()) charts = WritePhillyCharts(options.svg_dir, reports);
  if (options.json) {
    auto json = PhillyJson(reports);
    json["jobs"] = trace.size();
    json["nodes"] = options.shape.nodes;
    json["gpus_per_node"] = options.shape.gpus_per_node;
    json["cycle_seconds"] = options.cycle_seconds;
    json["checkpoint_interval_seconds"] = options.checkpoint_interval_seconds;
    json["reclaim_wait_seconds"] = options.reclaim_wait_seconds;
    json["reclaim_max_runtime_seconds"] = options.reclaim_max_runtime_seconds;
    json["immediate_guarantee_percent"] = options.immediate_guarantee_percent;
    json["order"] = ToString(options.order);
    json["quotas"] = QuotasJson(tenants);
    json["charts"] = charts;
    json["wall_seconds"] = SecondsSince(started);
    out << json.dump(2) << "\n";
    return 0;
  }
  PrintQuotas(out, tenants, options, trace.size());
  PrintPhillyTables(out, reports);
  PrintPhillyComparison(out, reports);
  for (const auto& chart : charts) out << "wrote " << chart << "\n";
  char line[64];
  std::snprintf(line, sizeof line, "total %.1f s\n", SecondsSince(started));
  out << line;
  return 0;
}

int RunAlibaba(const ReplayOptions& options, std::ostream& out) {
  const auto started = std::chrono::steady_clock::now();
  const std::string dir = Dir(options) + "/alibaba-gpu-2023/";
  const auto nodes = LoadAlibabaNodes(dir + "openb_node_list_gpu_node.csv");
  const auto tasks = LoadAlibabaTasks(dir + options.pod_list);
  EnginePlacer ours(nodes, tasks, engine::Packing::kFragmentationAware, "gpupool");
  EnginePlacer engine_best_fit(nodes, tasks, engine::Packing::kBestFit, "gpupool-bestfit");
  BestFitPlacer best_fit;
  const auto experiment = RunFragmentation(nodes, tasks, options.arrive_percent, options.seed,
                                           {&ours, &engine_best_fit, &best_fit});
  std::vector<std::string> charts;
  if (!options.svg_dir.empty()) charts = WriteFragCharts(options.svg_dir, experiment);
  if (options.json) {
    auto json = FragJson(experiment);
    json["pod_list"] = options.pod_list;
    json["charts"] = charts;
    json["wall_seconds"] = SecondsSince(started);
    out << json.dump(2) << "\n";
    return 0;
  }
  PrintFragTable(out, experiment);
  for (const auto& chart : charts) out << "wrote " << chart << "\n";
  char line[64];
  std::snprintf(line, sizeof line, "total %.2f s (loading, sampling and all placers)\n",
                SecondsSince(started));
  out << line;
  return 0;
}

}  // namespace

int RunReplay(const ReplayOptions& options, std::ostream& out, std::ostream& err) {
  try {
    return options.trace == TraceKind::kPhilly ? RunPhilly(options, out) : RunAlibaba(options, out);
  } catch (const TraceError& error) {
    err << "gpupool replay: " << error.what() << "\n";
  } catch (const std::invalid_argument& error) {
    err << "gpupool replay: " << error.what() << "\n";
  } catch (const std::filesystem::filesystem_error& error) {
    err << "gpupool replay: " << error.what() << "\n";
  } catch (const std::runtime_error& error) {
    err << "gpupool replay: " << error.what() << "\n";
  }
  return 1;
}

}  // namespace gpupool::replay
