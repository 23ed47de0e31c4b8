#include "job_rows.h"

#include <algorithm>

namespace gpupool::cli {
namespace {

using nlohmann::json;

std::string Text(const json& object, const char* key) {
  const auto found = object.find(key);
  if (found == object.end()) return "";
  return found->is_string() ? found->get<std::string>() : found->dump();
}

const json& Field(const json& object, const char* key) {
  static const json kEmpty = json::object();
  const auto found = object.find(key);
  return found != object.end() && found->is_object() ? *found : kEmpty;
}

std::string AdmittedMessage(const json& status) {
  const auto conditions = status.find("conditions");
  if (conditions == status.end() || !conditions->is_array()) return "";
  for (const json& condition : *conditions) {
    if (condition.is_object() && Text(condition, "type") == "Admitted")
      return Text(condition, "message");
  }
  return "";
}

std::string OrNone(const std::string& text) { return text.empty() ? "<none>" : text; }

std::vector<std::string> Cells(const JobRow& row, bool wide, bool namespaces) {
  std::vector<std::string> cells;
  if (namespaces) cells.push_back(row.ns);
  for (const auto& cell :
       {row.name, OrNone(row.project), OrNone(row.queue), OrNone(row.gpus), OrNone(row.phase),
        std::string(row.over_quota ? "true" : "false"), FormatAge(row.age_seconds)})
    cells.push_back(cell);
  if (wide) {
    cells.push_back(OrNone(row.allocated));
    cells.push_back(row.reason);
  }
  return cells;
}

std::vector<std::string> Header(bool wide, bool namespaces) {
  std::vector<std::string> head;
  if (namespaces) head.push_back("NAMESPACE");
  for (const char* name : {"NAME", "PROJECT", "QUEUE", "GPUS", "PHASE", "OVER-QUOTA", "AGE"})
    head.push_back(name);
  if (wide) head.insert(head.end(), {"ALLOCATED", "REASON"});
  return head;
}

}  // namespace

JobRow ToRow(const json& job, op::EpochSeconds now) {
  const json& metadata = Field(job, "metadata");
  const json& spec = Field(job, "spec");
  const json& status = Field(job, "status");
  JobRow row;
  row.ns = Text(metadata, "namespace");
  row.name = Text(metadata, "name");
  row.project = Text(status, "project");
  row.queue = Text(spec, "queue");
  row.workload_class = Text(spec, "workloadClass");
  row.gpus = Text(status, "requestedGpu");
  row.allocated = Text(status, "allocatedGpu");
  row.phase = Text(status, "phase");
  row.over_quota = status.value("overQuota", json(false)) == json(true);
  const auto created = op::ParseTime(Text(metadata, "creationTimestamp"));
  row.age_seconds = created ? std::max<op::EpochSeconds>(0, now - *created) : 0;
  row.reason = AdmittedMessage(status);
  return row;
}

std::string FormatAge(op::EpochSeconds seconds) {
  if (seconds < 120) return std::to_string(seconds) + "s";
  if (seconds < 2 * 3600) return std::to_string(seconds / 60) + "m";
  if (seconds < 2 * 86400) return std::to_string(seconds / 3600) + "h";
  return std::to_string(seconds / 86400) + "d";
}

void PrintJobTable(const std::vector<JobRow>& rows, bool wide, bool namespaces, std::ostream& out) {
  std::vector<std::vector<std::string>> table = {Header(wide, namespaces)};
  for (const auto& row : rows) table.push_back(Cells(row, wide, namespaces));
  std::vector<std::size_t> width(table[0].size(), 0);
  for (const auto& cells : table)
    for (std::size_t i = 0; i < cells.size(); ++i) width[i] = std::max(width[i], cells[i].size());
  for (const auto& cells : table) {
    std::string line;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      line += cells[i];
      if (i + 1 < cells.size()) line += std::string(width[i] - cells[i].size() + 3, ' ');
    }
    out << line << "\n";
  }
}

json JobRowsJson(const std::vector<JobRow>& rows) {
  json items = json::array();
  for (const auto& row : rows) {
    items.push_back({{"namespace", row.ns},
                     {"name", row.name},
                     {"project", row.project},
                     {"queue", row.queue},
                     {"workloadClass", row.workload_class},
                     {"gpus", row.gpus},
                     {"allocatedGpus", row.allocated},
                     {"phase", row.phase},
                     {"overQuota", row.over_quota},
                     {"ageSeconds", row.age_seconds},
                     {"reason", row.reason}});
  }
  return items;
}

}  // namespace gpupool::cli
