// A small CSV reader for trace files. Every error names the file, the line and
// the column, so a broken trace row can be found and fixed by hand.
#pragma once

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::replay {

// Thrown for unreadable files and malformed rows; what() reads like
// `philly.csv:12: column "num_gpus": expected an integer, got "x"`.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CsvReader {
 public:
  // Opens the file and reads its header row; throws TraceError when the file
  // cannot be read or is empty.
  explicit CsvReader(const std::string& path);

  // The index of a header column; throws TraceError naming the missing column.
  size_t Column(std::string_view name) const;

  // Reads the next non-empty row into fields; returns false at end of file.
  // Throws TraceError when the row has a different number of fields than the header.
  bool Next();

  int line() const { return line_; }
  const std::string& path() const { return path_; }

  // Typed access to the current row; each throws TraceError naming file, line and column.
  const std::string& Text(size_t column) const;
  int64_t Integer(size_t column) const;
  double Number(size_t column) const;
  // Whether the header has this column (for optional columns).
  bool HasColumn(std::string_view name) const;

  // Throws TraceError for a value that parsed but breaks a rule of the trace.
  [[noreturn]] void Fail(size_t column, const std::string& message) const;

 private:
  std::string path_;
  std::ifstream in_;
  std::vector<std::string> header_;
  std::vector<std::string> fields_;
  int line_ = 0;
};

// Splits one CSV line; double-quoted fields may contain commas and "" escapes.
std::vector<std::string> SplitCsvLine(std::string_view line);

}  // namespace gpupool::replay
