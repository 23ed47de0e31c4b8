#include "svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace gpupool::replay {
namespace {

// Colour-blind-safe palette (Okabe-Ito).
constexpr const char* kColors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                   "#E69F00", "#56B4E9", "#000000"};
constexpr double kLeft = 70, kRight = 20, kTop = 40, kBottom = 70;

std::string Format(double value) {
  char text[32];
  const double magnitude = std::fabs(value);
  if (magnitude != 0 && (magnitude >= 1e6 || magnitude < 1e-2)) {
    std::snprintf(text, sizeof text, "%.3g", value);
  } else {
    std::snprintf(text, sizeof text, "%.6g", std::round(value * 1000) / 1000);
  }
  return text;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
};

// Data ranges of both axes; x is in log10 space when the chart is logarithmic.
std::pair<Range, Range> DataRanges(const LineChart& chart) {
  Range x, y;
  double min_positive = std::numeric_limits<double>::infinity();
  for (const auto& series : chart.series) {
    for (const auto& [px, py] : series.points) {
      if (px > 0) min_positive = std::min(min_positive, px);
    }
  }
  for (const auto& series : chart.series) {
    for (auto [px, py] : series.points) {
      if (chart.log_x) px = std::log10(std::max(px, min_positive));
      x.lo = std::min(x.lo, px), x.hi = std::max(x.hi, px);
      y.lo = std::min(y.lo, py), y.hi = std::max(y.hi, py);
    }
  }
  if (!std::isfinite(x.lo)) x = {0, 1};
  if (!std::isfinite(y.lo)) y = {0, 1};
  if (chart.y_max >= chart.y_min) y = {chart.y_min, chart.y_max};
  if (chart.log_x) x = {std::floor(x.lo), std::ceil(x.hi)};
  if (x.hi <= x.lo) x.hi = x.lo + 1;
  if (y.hi <= y.lo) y.hi = y.lo + 1;
  return {x, y};
}

// About five round tick values in [lo, hi].
std::vector<double> Ticks(double lo, double hi) {
  const double raw = (hi - lo) / 5;
  const double power = std::pow(10, std::floor(std::log10(raw)));
  double step = power;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * power;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push_back(t);
  return ticks;
}

class Canvas {
 public:
  Canvas(const LineChart& chart, Range x, Range y) : chart_(chart), x_(x), y_(y) {}
  double X(double value) const {
    if (chart_.log_x) value = std::log10(std::max(value, std::pow(10, x_.lo)));
    return kLeft + (value - x_.lo) / (x_.hi - x_.lo) * (chart_.width - kLeft - kRight);
  }
  double Y(double value) const {
    value = std::clamp(value, y_.lo, y_.hi);
    return chart_.height - kBottom -
           (value - y_.lo) / (y_.hi - y_.lo) * (chart_.height - kTop - kBottom);
  }

 private:
  const LineChart& chart_;
  Range x_, y_;
};

void DrawAxes(std::ostream& out, const LineChart& chart, const Canvas& canvas, Range x, Range y) {
  const double bottom = chart.height - kBottom, right = chart.width - kRight;
  out << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << right - kLeft
      << "\" height=\"" << bottom - kTop << "\" fill=\"none\" stroke=\"#888\"/>\n";
  for (double t : Ticks(y.lo, y.hi)) {
    out << "<line x1=\"" << kLeft << "\" x2=\"" << right << "\" y1=\"" << canvas.Y(t) << "\" y2=\""
        << canvas.Y(t) << "\" stroke=\"#eee\"/>\n"
        << "<text x=\"" << kLeft - 6 << "\" y=\"" << canvas.Y(t) + 4 << "\" text-anchor=\"end\">"
        << Format(t) << "</text>\n";
  }
  std::vector<double> x_ticks;
  if (chart.log_x) {
    for (double e = x.lo; e <= x.hi; ++e) x_ticks.push_back(std::pow(10, e));
  } else {
    x_ticks = Ticks(x.lo, x.hi);
  }
  for (double t : x_ticks) {
    out << "<text x=\"" << canvas.X(t) << "\" y=\"" << bottom + 18 << "\" text-anchor=\"middle\">"
        << Format(t) << "</text>\n";
  }
  out << "<text x=\"" << (kLeft + right) / 2 << "\" y=\"" << bottom + 40
      << "\" text-anchor=\"middle\">" << XmlEscape(chart.x_label) << "</text>\n"
      << "<text transform=\"translate(16," << (kTop + bottom) / 2
      << ") rotate(-90)\" text-anchor=\"middle\">" << XmlEscape(chart.y_label) << "</text>\n"
      << "<text x=\"" << chart.width / 2 << "\" y=\"24\" text-anchor=\"middle\" "
      << "font-weight=\"bold\">" << XmlEscape(chart.title) << "</text>\n";
}

void DrawSeries(std::ostream& out, const LineChart& chart, const Canvas& canvas) {
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const auto& series = chart.series[i];
    const char* color = kColors[i % std::size(kColors)];
    out << "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" << color << "\" points=\"";
    double previous_y = 0;
    for (size_t p = 0; p < series.points.size(); ++p) {
      const auto& [px, py] = series.points[p];
      if (series.steps && p > 0) out << canvas.X(px) << ',' << canvas.Y(previous_y) << ' ';
      out << canvas.X(px) << ',' << canvas.Y(py) << ' ';
      previous_y = py;
    }
    out << "\"/>\n";
    const double legend_y = kTop + 16 + 18 * static_cast<double>(i);
    out << "<line x1=\"" << kLeft + 10 << "\" x2=\"" << kLeft + 30 << "\" y1=\"" << legend_y - 4
        << "\" y2=\"" << legend_y - 4 << "\" stroke=\"" << color << "\" stroke-width=\"3\"/>\n"
        << "<text x=\"" << kLeft + 36 << "\" y=\"" << legend_y << "\">" << XmlEscape(series.name)
        << "</text>\n";
  }
}

}  // namespace

std::string XmlEscape(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

std::string RenderSvg(const LineChart& chart) {
  const auto [x, y] = DataRanges(chart);
  const Canvas canvas(chart, x, y);
  std::ostringstream out;
  out.precision(5);
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << chart.width << "\" height=\""
      << chart.height << "\" viewBox=\"0 0 " << chart.width << ' ' << chart.height
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  DrawAxes(out, chart, canvas, x, y);
  DrawSeries(out, chart, canvas);
  out << "</svg>\n";
  return out.str();
}

void WriteSvg(const LineChart& chart, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path + ": cannot write the chart");
  out << RenderSvg(chart);
  if (!out) throw std::runtime_error(path + ": write failed");
}

}  // namespace gpupool::replay
