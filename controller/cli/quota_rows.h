// What `gpupool projects` and `gpupool queues` show, the dashboard's figures in
// a terminal: per project and queue (or per queue) the GPUs guaranteed,
// allocated, over quota and pending, the jobs running and waiting, and the
// utilization of the GPUs held, read from the objects' status and the jobs'.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace gpupool::cli {

struct QuotaRow {
  std::string project;  // empty in a queue's row
  std::string queue;
  std::string sharing;   // a queue's Fixed or Guaranteed; empty in a project's row
  std::string capacity;  // a queue's GPUs; empty in a project's row
  std::string guaranteed, allocated, over_quota, pending;  // GPUs, as the status writes them
  int running_jobs = 0;
  int waiting_jobs = 0;
  // Mean utilization of the GPUs held by its running jobs, weighted by GPUs;
  // absent while none reports one.
  std::optional<int> utilization_percent;
};

// One row per project and queue it has a quota or jobs in, sorted by project.
std::vector<QuotaRow> ProjectRows(const std::vector<nlohmann::json>& projects,
                                  const std::vector<nlohmann::json>& jobs);
// One row per queue, sorted by name.
std::vector<QuotaRow> QueueRows(const std::vector<nlohmann::json>& queues,
                                const std::vector<nlohmann::json>& jobs);

// As a table (projects' columns when the rows are a project's) or a JSON array.
void PrintQuotaTable(const std::vector<QuotaRow>& rows, bool projects, std::ostream& out);
nlohmann::json QuotaRowsJson(const std::vector<QuotaRow>& rows, bool projects);

}  // namespace gpupool::cli
