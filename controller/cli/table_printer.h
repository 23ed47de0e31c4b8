// Columns as kubectl prints them: left-aligned, three spaces apart, the first
// row the header.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace gpupool::cli {

void PrintTable(const std::vector<std::vector<std::string>>& table, std::ostream& out);

}  // namespace gpupool::cli
