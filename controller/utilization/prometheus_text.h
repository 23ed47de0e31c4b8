// A reader of the Prometheus text exposition format (version 0.0.4, the format
// the DCGM exporter serves) that keeps the samples of one metric. Hostile input
// is expected: a malformed line is counted and skipped, never fatal.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpupool/utilization/readings.h"

namespace gpupool::utilization {

struct Sample {
  std::vector<std::pair<std::string, std::string>> labels;
  double value = 0;

  // The first of `names` that the sample carries, else "".
  std::string Label(std::initializer_list<std::string_view> names) const;
};

struct ParsedSamples {
  std::vector<Sample> samples;  // Of the wanted metric only.
  std::size_t malformed_lines = 0;
  std::string first_problem;  // "line 7: ..." of the first malformed line.
};

ParsedSamples ParseSamples(std::string_view text, std::string_view metric);

// The GPU readings of an exporter's page: DCGM_FI_DEV_GPU_UTIL samples whose
// value is a percentage. A page without one is unavailable, saying why.
Readings ReadingsFromText(std::string_view text, std::int64_t read_at);

}  // namespace gpupool::utilization
