#include "philly_report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "svg_chart.h"

namespace gpupool::replay {
namespace {

constexpr double kHour = 3600, kDay = 86400;

struct TenantSamples {
  std::vector<double> waits, jcts;
};

void AddJob(const SimJob& job, TenantStats& stats, TenantSamples& samples, double now) {
  ++stats.jobs;
  stats.preemptions += job.preemptions;
  stats.gpu_hours_lost += job.gpu_seconds_lost / kHour;
  double run = job.gpu_seconds_lost;
  if (job.state == JobState::kFinished) run += job.Gpus() * (job.finish - job.run_start);
  if (job.state == JobState::kRunning) run += job.Gpus() * (now - job.run_start);
  stats.gpu_hours_run += run / kHour;
  if (job.first_start < 0) {
    ++stats.never_started;
    return;
  }
  samples.waits.push_back(job.first_start - job.trace->arrival);
  if (job.state == JobState::kFinished) {
    ++stats.finished;
    samples.jcts.push_back(job.finish - job.trace->arrival);
  }
}

std::string Hours(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", seconds / kHour);
  return text;
}

void PrintTenantRow(std::ostream& out, const TenantStats& s) {
  char line[256];
  std::snprintf(line, sizeof line,
                "%-8s %6d %7.1f %6zu %6zu %5zu %8s %8s %8s %8s %8s %8s %6zu %9.1f\n",
                s.tenant.c_str(), s.quota, s.average_demand, s.jobs, s.finished, s.never_started,
                Hours(s.wait_seconds.mean).c_str(), Hours(s.wait_seconds.p50).c_str(),
                Hours(s.wait_seconds.p95).c_str(), Hours(s.jct_seconds.mean).c_str(),
                Hours(s.jct_seconds.p50).c_str(), Hours(s.jct_seconds.p95).c_str(), s.preemptions,
                s.gpu_hours_lost);
  out << line;
}

nlohmann::json SummaryJson(const Summary& s) {
  return {{"count", s.count}, {"mean", s.mean}, {"p50", s.p50}, {"p95", s.p95}, {"max", s.max}};
}

nlohmann::json TenantJson(const TenantStats& s) {
  return {{"tenant", s.tenant},
          {"quota_gpus", s.quota},
          {"average_demand_gpus", s.average_demand},
          {"jobs", s.jobs},
          {"finished", s.finished},
          {"never_started", s.never_started},
          {"wait_seconds", SummaryJson(s.wait_seconds)},
          {"jct_seconds", SummaryJson(s.jct_seconds)},
          {"preemptions", s.preemptions},
          {"gpu_hours_lost", s.gpu_hours_lost},
          {"gpu_hours_run", s.gpu_hours_run}};
}

}  // namespace

PolicyReport SummarizePhilly(const SimOutcome& outcome, const std::vector<TenantQuota>& tenants,
                             const SimOptions& options, double wall_seconds) {
  PolicyReport report;
  report.policy = options.policy;
  report.label = ToString(options.policy);
  report.cluster_gpus = options.shape.TotalGpus();
  std::vector<TenantSamples> samples(tenants.size());
  TenantSamples all_samples;
  for (const auto& quota : tenants) {
    report.tenants.push_back({quota.tenant, quota.quota, quota.average_demand});
  }
  report.all.tenant = "all";
  report.all.quota = report.cluster_gpus;
  for (const auto& job : outcome.jobs) {
    report.work_gpu_hours += job.Gpus() * job.trace->duration / kHour;
    AddJob(job, report.tenants[job.tenant], samples[job.tenant], outcome.makespan);
    AddJob(job, report.all, all_samples, outcome.makespan);
    report.job_tenants.push_back(job.tenant);
    report.job_waits.push_back(job.first_start < 0 ? -1 : job.first_start - job.trace->arrival);
  }
  for (size_t i = 0; i < tenants.size(); ++i) {
    report.tenants[i].wait_seconds = Summarize(samples[i].waits);
    report.tenants[i].jct_seconds = Summarize(samples[i].jcts);
    report.all.average_demand += tenants[i].average_demand;
  }
  report.all.wait_seconds = Summarize(all_samples.waits);
  report.all.jct_seconds = Summarize(all_samples.jcts);
  report.waits = std::move(all_samples.waits);
  const double capacity = report.cluster_gpus;
  report.utilization_percent =
      100.0 * outcome.allocated_gpus.Average(0, outcome.last_arrival) / capacity;
  for (const auto& [start, gpus] : outcome.allocated_gpus.Buckets(kDay, outcome.makespan)) {
    report.daily_utilization.emplace_back(start / kDay, 100.0 * gpus / capacity);
  }
  report.makespan_hours = outcome.makespan / kHour;
  report.cycles = outcome.cycles;
  report.wall_seconds = wall_seconds;
  return report;
}

void PrintPhillyTables(std::ostream& out, const std::vector<PolicyReport>& reports) {
  for (const auto& report : reports) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "\npolicy %s: %d GPUs, utilization %.1f %% (first to last arrival), makespan "
                  "%.1f days, %zu cycles, %.1f s\n",
                  report.label.c_str(), report.cluster_gpus, report.utilization_percent,
                  report.makespan_hours / 24, report.cycles, report.wall_seconds);
    out << line
        << "tenant    quota  demand   jobs   done never wait(h) ------------ jct(h) ---------"
           "---------- preempt GPU-h lost\n"
        << "                                          mean      p50      p95     mean      p50"
           "      p95\n";
    for (const auto& tenant : report.tenants) PrintTenantRow(out, tenant);
    PrintTenantRow(out, report.all);
  }
}

std::vector<std::string> TenantsWaitingLonger(const PolicyReport& baseline,
                                              const PolicyReport& run) {
  const size_t tenants = std::min(run.tenants.size(), baseline.tenants.size());
  std::vector<double> run_total(tenants, 0), baseline_total(tenants, 0);
  const size_t jobs = std::min(run.job_waits.size(), baseline.job_waits.size());
  for (size_t j = 0; j < jobs; ++j) {
    const auto tenant = static_cast<size_t>(run.job_tenants[j]);
    if (tenant >= tenants || run.job_waits[j] < 0 || baseline.job_waits[j] < 0) continue;
    run_total[tenant] += run.job_waits[j];
    baseline_total[tenant] += baseline.job_waits[j];
  }
  std::vector<std::string> longer;
  for (size_t i = 0; i < tenants; ++i) {
    if (run_total[i] > baseline_total[i]) longer.push_back(run.tenants[i].tenant);
  }
  return longer;
}

void PrintPhillyComparison(std::ostream& out, const std::vector<PolicyReport>& reports) {
  if (reports.size() < 2) return;
  char cell[64];
  auto row = [&](const std::string& name, auto value) {
    std::snprintf(cell, sizeof cell, "%-24s", name.c_str());
    out << cell;
    for (const auto& report : reports) {
      out << value(report);
    }
    out << "\n";
  };
  auto text = [&](const char* format, auto... values) {
    std::snprintf(cell, sizeof cell, format, values...);
    return std::string(cell);
  };
  out << "\nside by side (" << reports.front().cluster_gpus << " GPUs; wait mean / p95 in hours)\n";
  row("", [&](const PolicyReport& r) { return text("%28s", r.label.c_str()); });
  row("preemptions", [&](const PolicyReport& r) { return text("%28zu", r.all.preemptions); });
  row("GPU-hours lost", [&](const PolicyReport& r) {
    return text("%18.1f (%5.2f %%)", r.all.gpu_hours_lost,
                100.0 * r.all.gpu_hours_lost / std::max(r.work_gpu_hours, 1e-9));
  });
  auto wait = [&](const TenantStats& s) {
    return text("%19s / %6s", Hours(s.wait_seconds.mean).c_str(),
                Hours(s.wait_seconds.p95).c_str());
  };
  row("all tenants", [&](const PolicyReport& r) { return wait(r.all); });
  for (size_t i = 0; i < reports.front().tenants.size(); ++i) {
    row(reports.front().tenants[i].tenant,
        [&](const PolicyReport& r) { return wait(r.tenants[i]); });
  }
  for (const auto& baseline : reports) {
    if (baseline.policy != QuotaPolicy::kStatic) continue;
    for (const auto& run : reports) {
      if (run.policy == QuotaPolicy::kStatic) continue;
      const auto longer = TenantsWaitingLonger(baseline, run);
      out << "tenants waiting longer (mean over the jobs both started) under " << run.label
          << " than " << baseline.label << ": " << (longer.empty() ? "none" : "");
      for (size_t i = 0; i < longer.size(); ++i) out << (i ? ", " : "") << longer[i];
      out << "\n";
    }
  }
}

nlohmann::json PhillyJson(const std::vector<PolicyReport>& reports) {
  nlohmann::json policies = nlohmann::json::array();
  for (const auto& report : reports) {
    nlohmann::json tenants = nlohmann::json::array();
    for (const auto& tenant : report.tenants) tenants.push_back(TenantJson(tenant));
    policies.push_back({{"policy", ToString(report.policy)},
                        {"label", report.label},
                        {"work_gpu_hours", report.work_gpu_hours},
                        {"cluster_gpus", report.cluster_gpus},
                        {"utilization_percent", report.utilization_percent},
                        {"makespan_hours", report.makespan_hours},
                        {"cycles", report.cycles},
                        {"wall_seconds", report.wall_seconds},
                        {"all", TenantJson(report.all)},
                        {"tenants", tenants}});
  }
  return {{"trace", "philly"}, {"policies", policies}};
}

std::vector<std::string> WritePhillyCharts(const std::string& dir,
                                           const std::vector<PolicyReport>& reports) {
  std::filesystem::create_directories(dir);
  LineChart utilization{"Philly replay: GPUs allocated per day", "day of the trace",
                        "allocated / capacity (%)"};
  utilization.y_max = 100;
  LineChart waits{"Philly replay: waiting time (arrival to first start)",
                  "waiting time (hours, log scale; 0 drawn at the left edge)",
                  "fraction of jobs started"};
  waits.log_x = true;
  waits.y_max = 1;
  for (const auto& report : reports) {
    const std::string name = report.label;
    utilization.series.push_back({name, report.daily_utilization});
    ChartSeries cdf{name, EmpiricalCdf(report.waits, 400), true};
    for (auto& point : cdf.points) point.first = std::max(point.first / kHour, 1.0 / kHour);
    waits.series.push_back(std::move(cdf));
  }
  const std::vector<std::string> paths = {dir + "/philly-utilization.svg",
                                          dir + "/philly-waiting-cdf.svg"};
  WriteSvg(utilization, paths[0]);
  WriteSvg(waits, paths[1]);
  return paths;
}

}  // namespace gpupool::replay
