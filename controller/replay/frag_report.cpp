#include "frag_report.h"

#include <cstdio>
#include <filesystem>

#include "svg_chart.h"

namespace gpupool::replay {
namespace {

// Arrival levels (% of GPU capacity requested) the table and JSON report.
std::vector<double> Checkpoints(double target) {
  std::vector<double> levels;
  for (double level = 50; level < target; level += 10) levels.push_back(level);
  levels.push_back(target);
  return levels;
}

}  // namespace

void PrintFragTable(std::ostream& out, const FragExperiment& experiment) {
  char line[256];
  std::snprintf(line, sizeof line,
                "Alibaba 2023 fragmentation: %zu nodes, %.0f GPUs, %zu tasks arrived (seed %llu), "
                "GPU requests up to %.0f %% of capacity\n",
                experiment.nodes, experiment.capacity_milli / 1000.0, experiment.arrivals,
                static_cast<unsigned long long>(experiment.seed), experiment.target_percent);
  out << line << "milli-GPUs allocated / capacity (%) as arrivals grow\n  arrived %";
  for (const auto& run : experiment.runs) {
    std::snprintf(line, sizeof line, " %14s", run.placer.c_str());
    out << line;
  }
  out << "\n";
  for (double level : Checkpoints(experiment.target_percent)) {
    std::snprintf(line, sizeof line, "  %9.0f", level);
    out << line;
    for (const auto& run : experiment.runs) {
      std::snprintf(line, sizeof line, " %14.2f", run.AllocatedAt(level));
      out << line;
    }
    out << "\n";
  }
  for (const auto& run : experiment.runs) {
    std::snprintf(line, sizeof line,
                  "%-14s final %.2f %%, placed %zu, failed %zu (%.1f GPUs asked), %.2f s\n",
                  run.placer.c_str(), run.AllocatedPercent(), run.placed, run.failed,
                  run.failed_gpu_milli / 1000.0, run.seconds);
    out << line << "               failed by kind:";
    for (const auto& [kind, count] : run.failed_by_kind) out << " " << kind << " " << count;
    std::snprintf(line, sizeof line, "; first failure at %.1f %% arrived\n",
                  run.first_failure_percent);
    out << line;
  }
}

nlohmann::json FragJson(const FragExperiment& experiment) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : experiment.runs) {
    nlohmann::json levels = nlohmann::json::array();
    for (double level : Checkpoints(experiment.target_percent)) {
      levels.push_back({{"arrived_percent", level}, {"allocated_percent", run.AllocatedAt(level)}});
    }
    runs.push_back({{"placer", run.placer},
                    {"allocated_percent", run.AllocatedPercent()},
                    {"as_arrivals_grow", levels},
                    {"placed", run.placed},
                    {"failed", run.failed},
                    {"failed_gpu_milli", run.failed_gpu_milli},
                    {"failed_by_kind", run.failed_by_kind},
                    {"first_failure_arrived_percent", run.first_failure_percent},
                    {"seconds", run.seconds}});
  }
  return {{"trace", "alibaba"},
          {"nodes", experiment.nodes},
          {"capacity_milli_gpu", experiment.capacity_milli},
          {"arrivals", experiment.arrivals},
          {"target_percent", experiment.target_percent},
          {"seed", experiment.seed},
          {"runs", runs}};
}

std::vector<std::string> WriteFragCharts(const std::string& dir, const FragExperiment& experiment) {
  std::filesystem::create_directories(dir);
  LineChart chart{"Alibaba 2023: milli-GPUs allocated as tasks arrive",
                  "GPU requests arrived (% of capacity)", "allocated / capacity (%)"};
  chart.y_max = 100;
  for (const auto& run : experiment.runs) {
    ChartSeries series{run.placer};
    // One point per 0.5 % of arrivals keeps the file small and the curve exact enough.
    double next = 0;
    for (const auto& point : run.curve) {
      if (point.arrived_percent < next) continue;
      series.points.emplace_back(point.arrived_percent, point.allocated_percent);
      next = point.arrived_percent + 0.5;
    }
    if (!run.curve.empty()) {
      series.points.emplace_back(run.curve.back().arrived_percent,
                                 run.curve.back().allocated_percent);
    }
    chart.series.push_back(std::move(series));
  }
  // The same curves from 80 % of arrivals on, where the placers part.
  LineChart zoom = chart;
  zoom.title += " (from 80 % arrived)";
  zoom.y_min = 80;
  for (auto& series : zoom.series) {
    std::erase_if(series.points, [](const auto& point) { return point.first < 80; });
  }
  const std::vector<std::string> paths = {dir + "/alibaba-allocation.svg",
                                          dir + "/alibaba-allocation-zoom.svg"};
  WriteSvg(chart, paths[0]);
  WriteSvg(zoom, paths[1]);
  return paths;
}

}  // namespace gpupool::replay
