// `gpupool projects [NAME]` and `gpupool queues [NAME]`: what each project and
// queue is guaranteed, holds, lends and waits for, as the dashboard shows it.
#include <iostream>

#include "cluster_command.h"
#include "cluster_flags.h"
#include "gpupool/common/command.h"
#include "gpupool/json/yaml.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/resource.h"
#include "numeric_flag.h"
#include "quota_rows.h"

namespace gpupool::cli {
namespace {

using Json = nlohmann::json;

constexpr char kProjectsUsage[] =
    "Usage: gpupool projects [NAME] [-o json|yaml] [--kubeconfig FILE] [--context NAME]\n\n"
    "Per project and queue: GPUs guaranteed, allocated, over quota (what a reclaim takes\n"
    "back first) and pending, jobs running and waiting, and the utilization of the GPUs\n"
    "its running jobs hold (as the DCGM exporter reports it; <none> without readings).\n";

constexpr char kQueuesUsage[] =
    "Usage: gpupool queues [NAME] [-o json|yaml] [--kubeconfig FILE] [--context NAME]\n\n"
    "Per queue: sharing (Fixed or Guaranteed), the GPUs of its nodes, GPUs guaranteed,\n"
    "allocated, over quota and pending, jobs running and waiting, and the utilization of\n"
    "the GPUs its running jobs hold.\n";

struct QuotaFlags {
  ClusterFlags cluster;
  std::string name;  // empty: all
};

QuotaFlags ParseQuotaFlags(Args args) {
  QuotaFlags flags;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (ReadClusterFlag(args, i, flags.cluster, {"json", "yaml"})) continue;
    if (args[i].rfind("-", 0) == 0 || !flags.name.empty())
      throw UsageError("unknown argument \"" + args[i] + "\"");
    flags.name = args[i];
  }
  if (!flags.cluster.ns.empty() || flags.cluster.all_namespaces)
    throw UsageError("-n/-A: projects and queues belong to no namespace");
  return flags;
}

std::vector<Json> Objects(kube::Client& client, const kube::Resource& resource,
                          const std::string& name) {
  if (name.empty()) return client.ListAll(resource, "").items;
  return {client.Get(resource, "", name)};
}

// Every namespace's TrainingJobs, whose utilization the rows average; none (and
// a note) for a user who may not list them cluster-wide, as a researcher whose
// roles are her project's namespace.
std::vector<Json> JobsForUtilization(kube::Client& client) {
  try {
    return client.ListAll(kube::resources::kTrainingJobs, "").items;
  } catch (const kube::ApiError& error) {
    if (error.http_code() != 403) throw;
    std::cerr << "gpupool: no UTILIZATION: listing TrainingJobs in every namespace is not "
                 "allowed to you\n";
    return {};
  }
}

void Show(const QuotaFlags& flags, bool projects) {
  const auto client = ClientFor(flags.cluster);
  const auto objects = Objects(
      *client, projects ? kube::resources::kProjects : kube::resources::kQueues, flags.name);
  const auto jobs = JobsForUtilization(*client);
  const auto rows = projects ? ProjectRows(objects, jobs) : QueueRows(objects, jobs);
  if (flags.cluster.output == "json") {
    std::cout << QuotaRowsJson(rows, projects).dump(2) << "\n";
  } else if (flags.cluster.output == "yaml") {
    std::cout << json::ToYaml(QuotaRowsJson(rows, projects));
  } else if (rows.empty()) {
    std::cerr << (projects ? "No project quotas found.\n" : "No Queues found.\n");
  } else {
    PrintQuotaTable(rows, projects, std::cout);
  }
}

}  // namespace

int RunProjects(Args args) {
  return RunClusterCommand("projects", kProjectsUsage, args, ParseQuotaFlags,
                           [](const QuotaFlags& flags) {
                             Show(flags, true);
                             return 0;
                           });
}

int RunQueues(Args args) {
  return RunClusterCommand("queues", kQueuesUsage, args, ParseQuotaFlags,
                           [](const QuotaFlags& flags) {
                             Show(flags, false);
                             return 0;
                           });
}

}  // namespace gpupool::cli
