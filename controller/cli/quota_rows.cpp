#include "quota_rows.h"

#include <algorithm>
#include <map>

#include "gpupool/json/quantity.h"
#include "gpupool/kube/client.h"
#include "json_fields.h"
#include "table_printer.h"

namespace gpupool::cli {
namespace {

using Json = nlohmann::json;

int Int(const Json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_number_integer() ? found->get<int>() : 0;
}

// GPU-weighted utilization readings, per (project, queue) and per queue.
struct UtilizationSum {
  int64_t weighted = 0;  // percent x milli-GPUs
  int64_t milli = 0;
  std::optional<int> Percent() const {
    if (milli == 0) return std::nullopt;
    return static_cast<int>(weighted / milli);
  }
};

using UtilizationMap = std::map<std::pair<std::string, std::string>, UtilizationSum>;

UtilizationMap Utilization(const std::vector<Json>& jobs) {
  UtilizationMap sums;
  for (const Json& job : jobs) {
    const Json& status = ObjectAt(job, "status");
    const auto percent = status.find("gpuUtilizationPercent");
    const int64_t milli = MilliAt(status, "allocatedGpu").value_or(0);
    if (percent == status.end() || !percent->is_number_integer() || milli == 0) continue;
    const std::string queue =
        TextAt(status, "admittedQueue", TextAt(ObjectAt(job, "spec"), "queue"));
    for (const std::string& project : {TextAt(status, "project"), std::string()}) {
      auto& sum = sums[{project, queue}];
      sum.weighted += percent->get<int64_t>() * milli;
      sum.milli += milli;
    }
  }
  return sums;
}

void ReadUsage(const Json& usage, QuotaRow& row) {
  row.guaranteed = TextAt(usage, "guaranteed", "0");
  row.allocated = TextAt(usage, "allocated", "0");
  row.over_quota = TextAt(usage, "overQuota", "0");
  row.pending = TextAt(usage, "pending", "0");
}

std::string Percent(const std::optional<int>& percent) {
  return percent ? std::to_string(*percent) + "%" : "<none>";
}

}  // namespace

std::vector<QuotaRow> ProjectRows(const std::vector<Json>& projects,
                                  const std::vector<Json>& jobs) {
  const auto utilization = Utilization(jobs);
  std::vector<QuotaRow> rows;
  for (const Json& project : projects) {
    const std::string name = kube::NameOf(project);
    for (const Json& usage : ObjectAt(project, "status").value("queues", Json::array())) {
      QuotaRow row{.project = name, .queue = TextAt(usage, "queue")};
      ReadUsage(usage, row);
      row.running_jobs = Int(usage, "runningJobs");
      row.waiting_jobs = Int(usage, "pendingJobs");
      const auto found = utilization.find({name, row.queue});
      if (found != utilization.end()) row.utilization_percent = found->second.Percent();
      rows.push_back(std::move(row));
    }
  }
  std::sort(rows.begin(), rows.end(), [](const QuotaRow& a, const QuotaRow& b) {
    return std::tie(a.project, a.queue) < std::tie(b.project, b.queue);
  });
  return rows;
}

std::vector<QuotaRow> QueueRows(const std::vector<Json>& queues, const std::vector<Json>& jobs) {
  const auto utilization = Utilization(jobs);
  std::vector<QuotaRow> rows;
  for (const Json& queue : queues) {
    const Json& status = ObjectAt(queue, "status");
    QuotaRow row{.queue = kube::NameOf(queue),
                 .sharing = TextAt(ObjectAt(queue, "spec"), "sharing", "Guaranteed"),
                 .capacity = TextAt(status, "capacity", "0")};
    ReadUsage(status, row);
    row.running_jobs = Int(status, "runningJobs");
    row.waiting_jobs = Int(status, "pendingJobs");
    const auto found = utilization.find({"", row.queue});
    if (found != utilization.end()) row.utilization_percent = found->second.Percent();
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(),
            [](const QuotaRow& a, const QuotaRow& b) { return a.queue < b.queue; });
  return rows;
}

void PrintQuotaTable(const std::vector<QuotaRow>& rows, bool projects, std::ostream& out) {
  std::vector<std::vector<std::string>> table;
  if (projects) {
    table.push_back({"PROJECT", "QUEUE", "GUARANTEED", "ALLOCATED", "OVER-QUOTA", "PENDING",
                     "RUNNING", "WAITING", "UTILIZATION"});
  } else {
    table.push_back({"QUEUE", "SHARING", "CAPACITY", "GUARANTEED", "ALLOCATED", "OVER-QUOTA",
                     "PENDING", "RUNNING", "WAITING", "UTILIZATION"});
  }
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    if (projects) {
      cells = {row.project, row.queue};
    } else {
      cells = {row.queue, row.sharing, row.capacity};
    }
    cells.insert(cells.end(), {row.guaranteed, row.allocated, row.over_quota, row.pending,
                               std::to_string(row.running_jobs), std::to_string(row.waiting_jobs),
                               Percent(row.utilization_percent)});
    table.push_back(std::move(cells));
  }
  PrintTable(table, out);
}

Json QuotaRowsJson(const std::vector<QuotaRow>& rows, bool projects) {
  Json items = Json::array();
  for (const auto& row : rows) {
    Json item = {{"queue", row.queue},
                 {"guaranteed", row.guaranteed},
                 {"allocated", row.allocated},
                 {"overQuota", row.over_quota},
                 {"pending", row.pending},
                 {"runningJobs", row.running_jobs},
                 {"waitingJobs", row.waiting_jobs},
                 {"gpuUtilizationPercent",
                  row.utilization_percent ? Json(*row.utilization_percent) : Json(nullptr)}};
    if (projects) {
      item["project"] = row.project;
    } else {
      item["sharing"] = row.sharing;
      item["capacity"] = row.capacity;
    }
    items.push_back(std::move(item));
  }
  return items;
}

}  // namespace gpupool::cli
