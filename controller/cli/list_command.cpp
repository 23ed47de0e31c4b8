// `gpupool list`: a namespace's TrainingJobs (or every namespace's) with what
// they ask for, where they stand and, with -o wide, why they wait.
#include <algorithm>
#include <ctime>
#include <iostream>

#include "cluster_command.h"
#include "cluster_flags.h"
#include "gpupool/api/yaml.h"
#include "gpupool/common/command.h"
#include "gpupool/kube/resource.h"
#include "job_rows.h"
#include "numeric_flag.h"

namespace gpupool::cli {
namespace {

constexpr char kListUsage[] =
    "Usage: gpupool list [-n NAMESPACE | -A] [--project P] [-o wide|json|yaml|name]\n"
    "                    [--kubeconfig FILE] [--context NAME]\n\n"
    "Lists TrainingJobs: project, queue, GPUs asked for, phase, whether the job is shown\n"
    "over its project's quota (a reclaim stops those first) and age; -o wide adds a waiting\n"
    "job's position in its project's line in its queue (the order the scheduler offers them:\n"
    "highest priority, then earliest queued; projects take turns by priority and fair\n"
    "share), the GPUs held and the reason a job waits, -o json and -o yaml the same fields as a "
    "list,\n"
    "-o name each job as trainingjob.gpupool.dev/NAME.\n"
    "The namespace is the kubeconfig context's unless -n or -A says otherwise.\n";

struct ListFlags {
  ClusterFlags cluster;
  std::string project;
};

ListFlags ParseListFlags(Args args) {
  ListFlags flags;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (ReadClusterFlag(args, i, flags.cluster, {"wide", "json", "yaml", "name"})) continue;
    if (IsFlag(args[i], "--project")) {
      flags.project = FlagValue(args, i, "--project");
      continue;
    }
    throw UsageError("unknown argument \"" + args[i] + "\"");
  }
  return flags;
}

std::vector<JobRow> ListRows(const ListFlags& flags) {
  const auto client = ClientFor(flags.cluster);
  const std::string ns = flags.cluster.all_namespaces ? "" : NamespaceOf(flags.cluster, *client);
  const auto now = static_cast<op::EpochSeconds>(std::time(nullptr));
  std::vector<JobRow> rows;
  for (const auto& job : client->ListAll(kube::resources::kTrainingJobs, ns).items) {
    JobRow row = ToRow(job, now);
    if (flags.project.empty() || row.project == flags.project) rows.push_back(std::move(row));
  }
  NumberTheLines(rows);
  std::sort(rows.begin(), rows.end(), [](const JobRow& a, const JobRow& b) {
    return std::tie(a.ns, a.name) < std::tie(b.ns, b.name);
  });
  return rows;
}

void PrintRows(const std::vector<JobRow>& rows, const ClusterFlags& cluster) {
  if (cluster.output == "json") {
    std::cout << JobRowsJson(rows).dump(2) << "\n";
  } else if (cluster.output == "yaml") {
    std::cout << api::JsonToYaml(JobRowsJson(rows));
  } else if (cluster.output == "name") {
    for (const auto& row : rows) std::cout << "trainingjob.gpupool.dev/" << row.name << "\n";
  } else if (rows.empty()) {
    std::cerr << "No TrainingJobs found.\n";
  } else {
    PrintJobTable(rows, cluster.output == "wide", cluster.all_namespaces, std::cout);
  }
}

}  // namespace

int RunList(Args args) {
  return RunClusterCommand("list", kListUsage, args, ParseListFlags, [](const ListFlags& flags) {
    PrintRows(ListRows(flags), flags.cluster);
    return 0;
  });
}

}  // namespace gpupool::cli
