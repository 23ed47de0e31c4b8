#include "capacity_sweep.h"

#include <cstdio>
#include <filesystem>

#include "svg_chart.h"

namespace gpupool::replay {
namespace {

std::string Needed(const std::optional<double>& gpus, int largest) {
  char text[32];
  if (gpus) {
    std::snprintf(text, sizeof text, "%.0f", *gpus);
  } else {
    std::snprintf(text, sizeof text, "> %d", largest);
  }
  return text;
}

}  // namespace

std::optional<double> GpusForMeanWait(const std::vector<int>& gpus,
                                      const std::vector<double>& mean_wait_hours,
                                      double target_hours) {
  for (size_t i = 0; i < gpus.size() && i < mean_wait_hours.size(); ++i) {
    if (mean_wait_hours[i] > target_hours) continue;
    if (i == 0) return gpus[0];
    const double above = mean_wait_hours[i - 1], below = mean_wait_hours[i];
    const double fraction = (above - target_hours) / (above - below);
    return gpus[i - 1] + fraction * (gpus[i] - gpus[i - 1]);
  }
  return std::nullopt;
}

void PrintSweep(std::ostream& out, const SweepResult& sweep) {
  char line[128];
  out << "\ncapacity sweep: mean wait (hours) / GPU-hours lost (% of the trace's work)\n";
  std::snprintf(line, sizeof line, "%6s", "GPUs");
  out << line;
  for (const auto& s : sweep.series) {
    std::snprintf(line, sizeof line, " %30s", s.label.c_str());
    out << line;
  }
  out << "\n";
  for (size_t i = 0; i < sweep.gpus.size(); ++i) {
    std::snprintf(line, sizeof line, "%6d", sweep.gpus[i]);
    out << line;
    for (const auto& s : sweep.series) {
      std::snprintf(line, sizeof line, " %21.2f / %5.2f %%", s.mean_wait_hours[i],
                    s.lost_percent[i]);
      out << line;
    }
    out << "\n";
  }
  const int largest = sweep.gpus.empty() ? 0 : sweep.gpus.back();
  for (double target : sweep.wait_targets_hours) {
    std::snprintf(line, sizeof line, "GPUs for a mean wait of %g h:", target);
    out << line;
    std::vector<std::optional<double>> needed;
    for (const auto& s : sweep.series) {
      needed.push_back(GpusForMeanWait(sweep.gpus, s.mean_wait_hours, target));
      out << "  " << s.label << " " << Needed(needed.back(), largest);
    }
    out << "\n";
    for (size_t a = 0; a < needed.size(); ++a) {
      for (size_t b = 0; b < needed.size(); ++b) {
        if (a == b || !needed[a] || !needed[b] || sweep.series[a].label != "static") continue;
        std::snprintf(line, sizeof line, "  ratio %s / %s: %.2fx\n", sweep.series[a].label.c_str(),
                      sweep.series[b].label.c_str(), *needed[a] / *needed[b]);
        out << line;
      }
    }
  }
}

nlohmann::json SweepJson(const SweepResult& sweep) {
  nlohmann::json series = nlohmann::json::array();
  for (const auto& s : sweep.series) {
    nlohmann::json needed = nlohmann::json::object();
    for (double target : sweep.wait_targets_hours) {
      const auto gpus = GpusForMeanWait(sweep.gpus, s.mean_wait_hours, target);
      needed[std::to_string(target)] = gpus ? nlohmann::json(*gpus) : nlohmann::json(nullptr);
    }
    series.push_back({{"label", s.label},
                      {"mean_wait_hours", s.mean_wait_hours},
                      {"lost_percent", s.lost_percent},
                      {"gpus_for_mean_wait_hours", needed}});
  }
  return {
      {"gpus", sweep.gpus}, {"wait_targets_hours", sweep.wait_targets_hours}, {"series", series}};
}

std::string WriteSweepChart(const std::string& dir, const SweepResult& sweep) {
  std::filesystem::create_directories(dir);
  LineChart chart{"Philly replay: mean wait against cluster size", "cluster GPUs",
                  "mean wait, all tenants (hours)"};
  for (const auto& s : sweep.series) {
    ChartSeries line{s.label, {}};
    for (size_t i = 0; i < sweep.gpus.size(); ++i) {
      line.points.emplace_back(sweep.gpus[i], s.mean_wait_hours[i]);
    }
    chart.series.push_back(std::move(line));
  }
  const std::string path = dir + "/philly-capacity-sweep.svg";
  WriteSvg(chart, path);
  return path;
}

}  // namespace gpupool::replay
