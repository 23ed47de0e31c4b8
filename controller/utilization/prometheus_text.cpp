#include "prometheus_text.h"

#include <cmath>
#include <cstdlib>

namespace gpupool::utilization {
namespace {

bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }
bool IsSpace(char c) { return c == ' ' || c == '\t'; }

class LineReader {
 public:
  explicit LineReader(std::string_view line) : line_(line) {}

  bool Done() const { return at_ >= line_.size(); }
  char Peek() const { return Done() ? '\0' : line_[at_]; }
  bool Take(char c) {
    if (Peek() != c) return false;
    ++at_;
    return true;
  }
  std::size_t SkipSpaces() {
    const std::size_t start = at_;
    while (!Done() && IsSpace(line_[at_])) ++at_;
    return at_ - start;
  }
  std::string_view Name() {
    const std::size_t start = at_;
    if (Done() || !IsNameStart(line_[at_])) return {};
    while (!Done() && IsNameChar(line_[at_])) ++at_;
    return line_.substr(start, at_ - start);
  }
  std::string_view Token() {
    const std::size_t start = at_;
    while (!Done() && !IsSpace(line_[at_])) ++at_;
    return line_.substr(start, at_ - start);
  }
  // A quoted label value with the format's three escapes; false if malformed.
  bool QuotedValue(std::string& value) {
    if (!Take('"')) return false;
    while (!Done()) {
      const char c = line_[at_++];
      if (c == '"') return true;
      if (c != '\\') {
        value += c;
        continue;
      }
      if (Done()) return false;
      const char escaped = line_[at_++];
      if (escaped == 'n') {
        value += '\n';
      } else if (escaped == '\\' || escaped == '"') {
        value += escaped;
      } else {
        return false;
      }
    }
    return false;
  }

 private:
  std::string_view line_;
  std::size_t at_ = 0;
};

std::string ReadLabels(LineReader& reader, Sample& sample) {
  if (!reader.Take('{')) return "";
  while (true) {
    reader.SkipSpaces();
    if (reader.Take('}')) return "";
    const std::string_view name = reader.Name();
    if (name.empty()) return "a label name must start with a letter or _";
    reader.SkipSpaces();
    if (!reader.Take('=')) return "label " + std::string(name) + " needs =";
    reader.SkipSpaces();
    std::string value;
    if (!reader.QuotedValue(value))
      return "label " + std::string(name) + " needs a quoted value with valid escapes";
    sample.labels.emplace_back(std::string(name), std::move(value));
    reader.SkipSpaces();
    if (reader.Take('}')) return "";
    if (!reader.Take(',')) return "labels must be separated by ,";
  }
}

bool ParseFloat(std::string_view token, double& value) {
  if (token.empty() || token.size() > 64) return false;
  const std::string text(token);
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

bool IsInteger(std::string_view token) {
  if (!token.empty() && token[0] == '-') token.remove_prefix(1);
  if (token.empty() || token.size() > 19) return false;
  for (char c : token)
    if (c < '0' || c > '9') return false;
  return true;
}

// "" when the line (whose name is already read) is a sample, else the problem.
std::string ReadSampleRest(LineReader& reader, Sample& sample) {
  if (std::string problem = ReadLabels(reader, sample); !problem.empty()) return problem;
  if (reader.SkipSpaces() == 0) return "a space must separate the value";
  if (!ParseFloat(reader.Token(), sample.value)) return "the value is not a number";
  if (reader.SkipSpaces() > 0 && !reader.Done() && !IsInteger(reader.Token()))
    return "the timestamp is not an integer";
  reader.SkipSpaces();
  return reader.Done() ? "" : "unexpected text after the value";
}

}  // namespace

std::string Sample::Label(std::initializer_list<std::string_view> names) const {
  for (std::string_view name : names)
    for (const auto& [key, value] : labels)
      if (key == name) return value;
  return "";
}

ParsedSamples ParseSamples(std::string_view text, std::string_view metric) {
  ParsedSamples parsed;
  std::size_t number = 0;
  auto malformed = [&](const std::string& problem) {
    if (parsed.malformed_lines++ == 0)
      parsed.first_problem = "line " + std::to_string(number) + ": " + problem;
  };
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    LineReader reader(line);
    reader.SkipSpaces();
    if (reader.Done() || reader.Peek() == '#') continue;
    const std::string_view name = reader.Name();
    if (name.empty()) {
      malformed("a metric name must start with a letter, _ or :");
      continue;
    }
    if (name != metric) continue;
    Sample sample;
    if (std::string problem = ReadSampleRest(reader, sample); !problem.empty()) {
      malformed(problem);
      continue;
    }
    parsed.samples.push_back(std::move(sample));
  }
  return parsed;
}

Readings ReadingsFromText(std::string_view text, std::int64_t read_at) {
  Readings readings;
  readings.read_at = read_at;
  ParsedSamples parsed = ParseSamples(text, kGpuUtilMetric);
  readings.malformed_lines = parsed.malformed_lines;
  readings.first_problem = parsed.first_problem;
  for (const Sample& sample : parsed.samples) {
    if (!std::isfinite(sample.value) || sample.value < 0 || sample.value > 100) {
      ++readings.malformed_lines;
      if (readings.first_problem.empty())
        readings.first_problem = std::string(kGpuUtilMetric) + " outside 0..100";
      continue;
    }
    GpuReading reading;
    // Scraped through a Prometheus server, the exporter's own pod labels are
    // renamed exported_*; read straight from the exporter they are not.
    reading.node = sample.Label({"Hostname", "hostname"});
    reading.gpu = sample.Label({"gpu"});
    reading.uuid = sample.Label({"UUID", "uuid"});
    reading.ns = sample.Label({"exported_namespace", "namespace"});
    reading.pod = sample.Label({"exported_pod", "pod"});
    reading.container = sample.Label({"exported_container", "container"});
    reading.percent = sample.value;
    readings.Add(std::move(reading));
  }
  readings.available = !readings.gpus.empty();
  if (!readings.available)
    readings.problem = parsed.samples.empty()
                           ? std::string("no ") + kGpuUtilMetric + " sample in the page"
                           : std::string("no valid ") + kGpuUtilMetric + " sample in the page";
  return readings;
}

}  // namespace gpupool::utilization
