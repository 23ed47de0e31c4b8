// What the fragmentation experiment shows: milli-GPUs allocated / capacity as
// arrivals grow, for each placer side by side; as a table, JSON and an SVG chart.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "fragmentation.h"

namespace gpupool::replay {

void PrintFragTable(std::ostream& out, const FragExperiment& experiment);
nlohmann::json FragJson(const FragExperiment& experiment);
// alibaba-allocation.svg and alibaba-allocation-zoom.svg (from 80 % arrived on);
// returns their paths.
std::vector<std::string> WriteFragCharts(const std::string& dir, const FragExperiment& experiment);

}  // namespace gpupool::replay
