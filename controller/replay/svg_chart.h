// Line charts as plain SVG text: axes with ticks, one polyline per series and
// a legend. Enough for the replay's utilization and waiting-time charts
// without a plotting dependency.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gpupool::replay {

struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
  bool steps = false;                             // draw as a staircase (CDFs)
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartSeries> series;
  bool log_x = false;  // x values <= 0 are clamped to the smallest positive x
  double y_min = 0;
  double y_max = -1;  // < y_min: fit the data
  int width = 800;
  int height = 420;
};

// The whole SVG document.
std::string RenderSvg(const LineChart& chart);

// Writes RenderSvg(chart) to path; throws std::runtime_error when it cannot.
void WriteSvg(const LineChart& chart, const std::string& path);

// Escapes &, <, >, " for SVG text and attributes.
std::string XmlEscape(const std::string& text);

}  // namespace gpupool::replay
