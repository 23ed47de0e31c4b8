#include "job_rows.h"

#include <algorithm>

#include "json_fields.h"
#include "table_printer.h"

namespace gpupool::cli {
namespace {

using Json = nlohmann::json;

std::string AdmittedMessage(const Json& status) {
  const auto conditions = status.find("conditions");
  if (conditions == status.end() || !conditions->is_array()) return "";
  for (const Json& condition : *conditions) {
    if (condition.is_object() && TextAt(condition, "type") == "Admitted")
      return TextAt(condition, "message");
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
    cells.push_back(row.position > 0 ? std::to_string(row.position) : "-");
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
  if (wide) head.insert(head.end(), {"POSITION", "ALLOCATED", "REASON"});
  return head;
}

}  // namespace

JobRow ToRow(const Json& job, op::EpochSeconds now) {
  const Json& metadata = ObjectAt(job, "metadata");
  const Json& spec = ObjectAt(job, "spec");
  const Json& status = ObjectAt(job, "status");
  JobRow row;
  row.ns = TextAt(metadata, "namespace");
  row.name = TextAt(metadata, "name");
  row.project = TextAt(status, "project");
  row.queue = TextAt(spec, "queue");
  row.workload_class = TextAt(spec, "workloadClass");
  row.gpus = TextAt(status, "requestedGpu");
  row.allocated = TextAt(status, "allocatedGpu");
  row.phase = TextAt(status, "phase");
  row.over_quota = status.value("overQuota", Json(false)) == Json(true);
  const auto created = op::ParseTime(TextAt(metadata, "creationTimestamp"));
  row.age_seconds = created ? std::max<op::EpochSeconds>(0, now - *created) : 0;
  row.reason = AdmittedMessage(status);
  const auto priority = spec.find("priority");
  if (priority != spec.end() && priority->is_number_integer()) row.priority = priority->get<int>();
  row.queued_time = TextAt(status, "queuedTime");
  return row;
}

namespace {

bool SameLine(const JobRow& a, const JobRow& b) {
  return a.Waiting() && b.Waiting() && a.project == b.project && a.queue == b.queue;
}

// The engine's offer order within a project: highest priority, earliest queued, name.
bool OfferedBefore(const JobRow& a, const JobRow& b) {
  return std::make_tuple(-a.priority, a.queued_time, a.ns, a.name) <
         std::make_tuple(-b.priority, b.queued_time, b.ns, b.name);
}

}  // namespace

void NumberTheLines(std::vector<JobRow>& rows) {
  std::vector<JobRow*> waiting;
  for (auto& row : rows)
    if (row.Waiting()) waiting.push_back(&row);
  std::sort(waiting.begin(), waiting.end(), [](const JobRow* a, const JobRow* b) {
    if (a->project != b->project || a->queue != b->queue)
      return std::tie(a->project, a->queue) < std::tie(b->project, b->queue);
    return OfferedBefore(*a, *b);
  });
  for (std::size_t i = 0; i < waiting.size(); ++i)
    waiting[i]->position =
        i > 0 && SameLine(*waiting[i - 1], *waiting[i]) ? waiting[i - 1]->position + 1 : 1;
}

std::vector<JobRow> AheadOf(const std::vector<JobRow>& rows, const JobRow& row) {
  std::vector<JobRow> ahead;
  for (const auto& other : rows)
    if (SameLine(row, other) && OfferedBefore(other, row)) ahead.push_back(other);
  std::sort(ahead.begin(), ahead.end(), OfferedBefore);
  return ahead;
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
  PrintTable(table, out);
}

Json JobRowsJson(const std::vector<JobRow>& rows) {
  Json items = Json::array();
  for (const auto& row : rows) {
    items.push_back({{"kind", row.kind},
                     {"namespace", row.ns},
                     {"name", row.name},
                     {"project", row.project},
                     {"queue", row.queue},
                     {"workloadClass", row.workload_class},
                     {"gpus", row.gpus},
                     {"allocatedGpus", row.allocated},
                     {"phase", row.phase},
                     {"overQuota", row.over_quota},
                     {"ageSeconds", row.age_seconds},
                     {"reason", row.reason},
                     {"priority", row.priority},
                     {"queuePosition", row.position > 0 ? Json(row.position) : Json(nullptr)}});
  }
  return items;
}

}  // namespace gpupool::cli
