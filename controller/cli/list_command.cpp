// `gpupool list`: a namespace's TrainingJobs (or every namespace's) with what
// they ask for, where they stand and, with -o wide, why they wait.
#include <algorithm>
#include <ctime>
#include <iostream>
#include <map>

#include "cluster_command.h"
#include "cluster_flags.h"
#include "gpupool/common/command.h"
#include "gpupool/json/yaml.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/resource.h"
#include "gpupool/operator/pod_view.h"
#include "job_rows.h"
#include "numeric_flag.h"
#include "pod_group_rows.h"

namespace gpupool::cli {
namespace {

constexpr char kListUsage[] =
    "Usage: gpupool list [-n NAMESPACE | -A] [--project P] [-o wide|json|yaml|name]\n"
    "                    [--kubeconfig FILE] [--context NAME]\n\n"
    "Lists TrainingJobs, and the pods of other owners that ask gpupool to schedule them,\n"
    "one row per workload (group/NAME, job/NAME, pytorchjob/NAME, pod/NAME, ...): project,\n"
    "queue, GPUs asked for, phase, whether it is shown over its project's quota (a reclaim\n"
    "stops those first) and age. -o wide adds a waiting job's position in its project's\n"
    "line in its queue (the order the scheduler offers them: highest priority, then\n"
    "earliest queued; projects take turns by priority and fair share), the GPUs held and\n"
    "the reason it waits; -o json and -o yaml the same fields as a list; -o name each job\n"
    "as trainingjob.gpupool.dev/NAME and each workload of pods by its name.\n"
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

// Each namespace's Project, from their spec.namespaces.
std::map<std::string, std::string> ProjectOfNamespace(kube::Client& client) {
  std::map<std::string, std::string> owners;
  for (const auto& project : client.ListAll(kube::resources::kProjects, "").items) {
    const auto spec = project.find("spec");
    if (spec == project.end() || !spec->is_object()) continue;
    const auto namespaces = spec->find("namespaces");
    if (namespaces == spec->end() || !namespaces->is_array()) continue;
    for (const auto& ns : *namespaces)
      if (ns.is_string()) owners[ns.get<std::string>()] = project["metadata"].value("name", "");
  }
  return owners;
}

// The workloads of pods asking gpupool to schedule them; none, said on
// stderr, where the user may not list pods or Projects.
std::vector<JobRow> PodWorkloadRows(kube::Client& client, const std::string& ns,
                                    op::EpochSeconds now) {
  try {
    kube::ListOptions asking;
    asking.label_selector = op::kQueueLabel;
    const auto pods = client.ListAll(kube::resources::kPods, ns, asking).items;
    if (pods.empty()) return {};
    return PodGroupRows(pods, ProjectOfNamespace(client), now);
  } catch (const kube::ApiError& error) {
    std::cerr << "gpupool list: pods of other owners are not shown: " << error.what() << "\n";
    return {};
  }
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
  for (auto& row : PodWorkloadRows(*client, ns, now))
    if (flags.project.empty() || row.project == flags.project) rows.push_back(std::move(row));
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
    std::cout << json::ToYaml(JobRowsJson(rows));
  } else if (cluster.output == "name") {
    for (const auto& row : rows)
      std::cout << (row.kind == "TrainingJob" ? "trainingjob.gpupool.dev/" : "") << row.name
                << "\n";
  } else if (rows.empty()) {
    std::cerr << "No TrainingJobs or pods asking gpupool found.\n";
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
