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
  // "TrainingJob", or "PodGroup": pods of another owner (pod_group_rows.h),
  // whose name says what they are ("job/sweep", "pod/notebook").
  std::string kind = "TrainingJob";
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
  int priority = 0;
  std::string queued_time;  // status.queuedTime: its place in line
  // 1 for the first of its project's waiting jobs in its queue, in the order the
  // engine offers them (highest priority, then earliest queued, then name); 0
  // while it does not wait.
  int position = 0;

  bool Waiting() const { return phase == "Queued" || phase == "Preempted"; }
};

JobRow ToRow(const nlohmann::json& job, op::EpochSeconds now);

// Numbers each project's waiting jobs per queue (JobRow::position), among `rows`.
void NumberTheLines(std::vector<JobRow>& rows);

// The waiting jobs of `row`'s project and queue ahead of it, first first.
std::vector<JobRow> AheadOf(const std::vector<JobRow>& rows, const JobRow& row);

// "45s", "7m", "5h", "3d": the largest unit, as kubectl prints ages.
std::string FormatAge(op::EpochSeconds seconds);

// The rows as a table with kubectl's spacing; `wide` adds POSITION, ALLOCATED and REASON,
// `namespaces` a NAMESPACE column first.
void PrintJobTable(const std::vector<JobRow>& rows, bool wide, bool namespaces, std::ostream& out);

// The rows as a JSON array of objects with the table's columns as fields.
nlohmann::json JobRowsJson(const std::vector<JobRow>& rows);

}  // namespace gpupool::cli
