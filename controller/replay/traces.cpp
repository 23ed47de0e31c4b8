#include "gpupool/replay/traces.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "csv.h"

namespace gpupool::replay {
namespace {

// Parses "YYYY-MM-DD HH:MM:SS" (UTC) into seconds since the Unix epoch.
bool ParseTimestamp(const std::string& text, int64_t& seconds) {
  int year, month, day, hour, minute, second;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d %2d:%2d:%2d%c", &year, &month, &day, &hour, &minute,
                  &second, &tail) != 6) {
    return false;
  }
  const std::chrono::year_month_day date{std::chrono::year(year), std::chrono::month(month),
                                         std::chrono::day(day)};
  if (!date.ok() || hour > 23 || minute > 59 || second > 60 || hour < 0 || minute < 0 ||
      second < 0) {
    return false;
  }
  const auto days = std::chrono::sys_days(date).time_since_epoch().count();
  seconds = int64_t{days} * 86400 + hour * 3600 + minute * 60 + second;
  return true;
}

}  // namespace

std::string TraceDir() {
  if (const char* dir = std::getenv("GPUPOOL_TRACE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return std::string(GPUPOOL_SOURCE_DIR) + "/../shared/traces";
}

std::vector<PhillyJob> LoadPhillyTrace(const std::string& path) {
  CsvReader csv(path);
  const size_t timestamp = csv.Column("timestamp");
  const size_t duration = csv.Column("duration");
  const size_t num_gpus = csv.Column("num_gpus");
  const size_t cluster = csv.Column("cluster");
  std::vector<PhillyJob> jobs;
  std::vector<int64_t> epoch_seconds;
  while (csv.Next()) {
    PhillyJob job;
    job.id = csv.line();
    int64_t at = 0;
    if (!ParseTimestamp(csv.Text(timestamp), at)) {
      csv.Fail(timestamp, "expected \"YYYY-MM-DD HH:MM:SS\", got \"" + csv.Text(timestamp) + "\"");
    }
    job.duration = csv.Number(duration);
    if (job.duration < 0) csv.Fail(duration, "must be >= 0");
    const int64_t gpus = csv.Integer(num_gpus);
    if (gpus < 1 || gpus > 100000) csv.Fail(num_gpus, "must be between 1 and 100000");
    job.gpus = static_cast<int>(gpus);
    job.tenant = csv.Text(cluster);
    if (job.tenant.empty()) csv.Fail(cluster, "must not be empty");
    jobs.push_back(std::move(job));
    epoch_seconds.push_back(at);
  }
  if (jobs.empty()) throw TraceError(path + ": no jobs after the header");
  const int64_t start = *std::min_element(epoch_seconds.begin(), epoch_seconds.end());
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].arrival = static_cast<double>(epoch_seconds[i] - start);
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const PhillyJob& a, const PhillyJob& b) { return a.arrival < b.arrival; });
  return jobs;
}

std::vector<AlibabaNode> LoadAlibabaNodes(const std::string& path) {
  CsvReader csv(path);
  const size_t sn = csv.Column("sn");
  const size_t cpu = csv.Column("cpu_milli");
  const size_t memory = csv.Column("memory_mib");
  const size_t gpu = csv.Column("gpu");
  const size_t model = csv.Column("model");
  std::vector<AlibabaNode> nodes;
  while (csv.Next()) {
    AlibabaNode node{csv.Text(sn), csv.Integer(cpu), csv.Integer(memory), 0, csv.Text(model)};
    if (node.cpu_milli < 0) csv.Fail(cpu, "must be >= 0");
    if (node.memory_mib < 0) csv.Fail(memory, "must be >= 0");
    const int64_t gpus = csv.Integer(gpu);
    if (gpus < 0 || gpus > 64) csv.Fail(gpu, "must be between 0 and 64");
    node.gpus = static_cast<int>(gpus);
    nodes.push_back(std::move(node));
  }
  if (nodes.empty()) throw TraceError(path + ": no nodes after the header");
  return nodes;
}

std::vector<AlibabaTask> LoadAlibabaTasks(const std::string& path) {
  CsvReader csv(path);
  const size_t name = csv.Column("name");
  const size_t cpu = csv.Column("cpu_milli");
  const size_t memory = csv.Column("memory_mib");
  const size_t num_gpu = csv.Column("num_gpu");
  const size_t gpu_milli = csv.Column("gpu_milli");
  const bool has_spec = csv.HasColumn("gpu_spec");
  const size_t gpu_spec = has_spec ? csv.Column("gpu_spec") : 0;
  std::vector<AlibabaTask> tasks;
  while (csv.Next()) {
    AlibabaTask task{csv.Text(name), csv.Integer(cpu), csv.Integer(memory), 0, 0, ""};
    if (task.cpu_milli < 0) csv.Fail(cpu, "must be >= 0");
    if (task.memory_mib < 0) csv.Fail(memory, "must be >= 0");
    const int64_t gpus = csv.Integer(num_gpu);
    if (gpus < 0 || gpus > 64) csv.Fail(num_gpu, "must be between 0 and 64");
    const int64_t milli = csv.Integer(gpu_milli);
    if (gpus == 0 && milli != 0) csv.Fail(gpu_milli, "must be 0 when num_gpu is 0");
    if (gpus == 1 && (milli < 1 || milli > 1000)) csv.Fail(gpu_milli, "must be 1..1000");
    if (gpus > 1 && milli != 1000) csv.Fail(gpu_milli, "must be 1000 when num_gpu > 1");
    task.num_gpu = static_cast<int>(gpus);
    task.gpu_milli = static_cast<int>(milli);
    if (has_spec) task.gpu_spec = csv.Text(gpu_spec);
    tasks.push_back(std::move(task));
  }
  if (tasks.empty()) throw TraceError(path + ": no tasks after the header");
  return tasks;
}

}  // namespace gpupool::replay
