// `gpupool describe NAME`: one TrainingJob in words: what it asks for, where it
// stands and why, where its replicas run, its conditions and its recent Events.
#include <algorithm>
#include <ctime>
#include <iostream>

#include "cluster_command.h"
#include "cluster_flags.h"
#include "gpupool/common/command.h"
#include "gpupool/kube/resource.h"
#include "job_rows.h"
#include "job_target.h"
#include "numeric_flag.h"

namespace gpupool::cli {
namespace {

using Json = nlohmann::json;

constexpr char kDescribeUsage[] =
    "Usage: gpupool describe NAME [-n NAMESPACE] [--kubeconfig FILE] [--context NAME]\n\n"
    "Describes one TrainingJob: project, queue, GPUs asked for and held, phase and\n"
    "standing, why it waits (the message of its Admitted condition) and its place in its\n"
    "project's line with the jobs ahead of it, where its replicas\n"
    "run, how often it was preempted, its conditions and its Events.\n";

void Line(const std::string& label, const std::string& value) {
  if (!value.empty()) std::cout << label << std::string(14 - label.size(), ' ') << value << "\n";
}

std::string StandingOf(const JobRow& row) {
  if (row.phase.empty()) return "not yet seen by the controller";
  if (row.phase != "Admitted" && row.phase != "Running") return row.phase;
  return row.phase + (row.over_quota ? ", over its project's quota (stopped first by a reclaim)"
                                     : ", within its project's quota");
}

void PrintPlacement(const Json& status) {
  const auto placement = status.find("placement");
  if (placement == status.end() || !placement->is_array() || placement->empty()) return;
  std::cout << "Placement:\n";
  for (const Json& replica : *placement) {
    if (!replica.is_object()) continue;
    std::cout << "  replica " << replica.value("replica", Json(0)).dump() << ": node "
              << replica.value("node", std::string("?")) << ", devices "
              << replica.value("devices", Json::array()).dump() << "\n";
  }
}

void PrintConditions(const Json& status) {
  const auto conditions = status.find("conditions");
  if (conditions == status.end() || !conditions->is_array() || conditions->empty()) return;
  std::cout << "Conditions:\n";
  for (const Json& condition : *conditions) {
    if (!condition.is_object()) continue;
    std::cout << "  " << condition.value("type", std::string()) << "="
              << condition.value("status", std::string()) << " "
              << condition.value("reason", std::string()) << ": "
              << condition.value("message", std::string()) << "\n";
  }
}

// When an Event last happened, as RFC 3339 text (which sorts by time).
std::string EventTime(const Json& event) {
  for (const char* key : {"lastTimestamp", "eventTime", "firstTimestamp"}) {
    const auto found = event.find(key);
    if (found != event.end() && found->is_string() && !found->get<std::string>().empty())
      return found->get<std::string>();
  }
  return "";
}

// Oldest first, as kubectl describe lists them.
void PrintEvents(kube::Client& client, const std::string& ns, const std::string& name) {
  kube::ListOptions options;
  options.field_selector = "involvedObject.kind=TrainingJob,involvedObject.name=" + name;
  auto events = client.ListAll(kube::resources::kCoreEvents, ns, options).items;
  std::stable_sort(events.begin(), events.end(),
                   [](const Json& a, const Json& b) { return EventTime(a) < EventTime(b); });
  std::cout << "Events:" << (events.empty() ? " <none>" : "") << "\n";
  for (const Json& event : events) {
    std::cout << "  " << event.value("type", std::string()) << " "
              << event.value("reason", std::string()) << ": "
              << event.value("message", std::string()) << "\n";
  }
}

// A waiting job's place in its project's line and the jobs ahead of it.
void PrintLine(kube::Client& client, const JobRow& row) {
  if (!row.Waiting()) return;
  std::vector<JobRow> rows;
  const auto now = static_cast<op::EpochSeconds>(std::time(nullptr));
  for (const Json& job : client.ListAll(kube::resources::kTrainingJobs, row.ns).items)
    rows.push_back(ToRow(job, now));
  NumberTheLines(rows);
  const auto ahead = AheadOf(rows, row);
  Line("Position:", std::to_string(ahead.size() + 1) + " in project " + row.project +
                        "'s line in queue " + row.queue +
                        " (highest priority first, then earliest queued)");
  if (ahead.empty()) return;
  std::cout << "Ahead of it:\n";
  for (const auto& other : ahead)
    std::cout << "  " << other.name << ": " << other.gpus << " GPUs, priority " << other.priority
              << ", queued " << other.queued_time << "\n";
}

void Describe(const JobTarget& flags) {
  const auto client = ClientFor(flags.cluster);
  const std::string ns = NamespaceOf(flags.cluster, *client);
  const Json job = OnJob(
      ns, flags.name, [&] { return client->Get(kube::resources::kTrainingJobs, ns, flags.name); });
  const Json& status = job.contains("status") ? job["status"] : Json::object();
  const JobRow row = ToRow(job, static_cast<op::EpochSeconds>(std::time(nullptr)));
  Line("Name:", row.name);
  Line("Namespace:", row.ns);
  Line("Project:", row.project);
  Line("Queue:", row.queue + (row.workload_class.empty() ? "" : " (" + row.workload_class + ")"));
  Line("GPUs:", (row.gpus.empty() ? "?" : row.gpus) + " asked for" +
                    (row.allocated.empty() ? "" : ", " + row.allocated + " held"));
  Line("Status:", StandingOf(row));
  Line("Why:", row.reason);
  PrintLine(*client, row);
  Line("Started:", status.value("startTime", std::string()));
  Line("Preempted:", status.contains("preemptionCount")
                         ? status["preemptionCount"].dump() + " times"
                         : std::string());
  Line("Age:", FormatAge(row.age_seconds));
  PrintPlacement(status);
  PrintConditions(status);
  PrintEvents(*client, ns, flags.name);
}

}  // namespace

int RunDescribe(Args args) {
  return RunClusterCommand(
      "describe", kDescribeUsage, args, [](Args all) { return ParseJobTarget(all, {}); },
      [](const JobTarget& target) {
        Describe(target);
        return 0;
      });
}

}  // namespace gpupool::cli
