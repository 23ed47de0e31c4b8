#include "table_printer.h"

#include <algorithm>

namespace gpupool::cli {

void PrintTable(const std::vector<std::vector<std::string>>& table, std::ostream& out) {
  std::vector<std::size_t> width;
  for (const auto& cells : table) {
    width.resize(std::max(width.size(), cells.size()), 0);
    for (std::size_t i = 0; i < cells.size(); ++i) width[i] = std::max(width[i], cells[i].size());
  }
  for (const auto& cells : table) {
    std::string line;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      line += cells[i];
      if (i + 1 < cells.size()) line += std::string(width[i] - cells[i].size() + 3, ' ');
    }
    out << line << "\n";
  }
}

}  // namespace gpupool::cli
