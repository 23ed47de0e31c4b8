#include "csv.h"

#include <charconv>
#include <cmath>

namespace gpupool::replay {

std::vector<std::string> SplitCsvLine(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

CsvReader::CsvReader(const std::string& path) : path_(path), in_(path) {
  if (!in_) throw TraceError(path + ": cannot open file");
  std::string header_line;
  if (!std::getline(in_, header_line)) throw TraceError(path + ": empty file (no header row)");
  line_ = 1;
  header_ = SplitCsvLine(header_line);
}

size_t CsvReader::Column(std::string_view name) const {
  for (size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  throw TraceError(path_ + ":1: missing column \"" + std::string(name) + "\" in the header");
}

bool CsvReader::HasColumn(std::string_view name) const {
  for (const auto& column : header_) {
    if (column == name) return true;
  }
  return false;
}

bool CsvReader::Next() {
  std::string text;
  while (std::getline(in_, text)) {
    ++line_;
    if (text.empty() || text == "\r") continue;
    fields_ = SplitCsvLine(text);
    if (fields_.size() != header_.size()) {
      throw TraceError(path_ + ":" + std::to_string(line_) + ": expected " +
                       std::to_string(header_.size()) + " fields, got " +
                       std::to_string(fields_.size()));
    }
    return true;
  }
  return false;
}

void CsvReader::Fail(size_t column, const std::string& message) const {
  throw TraceError(path_ + ":" + std::to_string(line_) + ": column \"" + header_.at(column) +
                   "\": " + message);
}

const std::string& CsvReader::Text(size_t column) const { return fields_.at(column); }

int64_t CsvReader::Integer(size_t column) const {
  const std::string& text = fields_.at(column);
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    Fail(column, "expected an integer, got \"" + text + "\"");
  }
  return value;
}

double CsvReader::Number(size_t column) const {
  const std::string& text = fields_.at(column);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty() ||
      !std::isfinite(value)) {
    Fail(column, "expected a number, got \"" + text + "\"");
  }
  return value;
}

}  // namespace gpupool::replay
