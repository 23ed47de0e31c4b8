// A TrainingJob as `gpupool list` and `gpupool describe` show it: what it asks
// for, where it stands and why it waits, read from its spec and status.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "gpupool/operator/time.h"

namespace gpupool::cli {

struct JobRow {
  std::string ns;
  std::string name;
  std::string project;
  std::string queue;
  std::string workload_class;
  std::string gpus;       // requested, as the status writes it ("2", "0.5")
  std::string allocated;  // "" while it holds none
  std::string phase;      // "" until the controller has seen it
  bool over_quota = false;
  op::EpochSeconds age_seconds = 0;
  std::string reason;  // the Admitted condition's message
};

JobRow ToRow(const nlohmann::json& job, op::EpochSeconds now);

// "45s", "7m", "5h", "3d": the largest unit, as kubectl prints ages.
std::string FormatAge(op::EpochSeconds seconds);

// The rows as a table with kubectl's spacing; `wide` adds ALLOCATED and REASON,
// `namespaces` a NAMESPACE column first.
void PrintJobTable(const std::vector<JobRow>& rows, bool wide, bool namespaces, std::ostream& out);

// The rows as a JSON array of objects with the table's columns as fields.
nlohmann::json JobRowsJson(const std::vector<JobRow>& rows);

}  // namespace gpupool::cli
