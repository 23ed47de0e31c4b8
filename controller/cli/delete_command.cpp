// `gpupool delete NAME`: deletes a TrainingJob; its pods go with it (they are
// its dependents) and its GPUs return to the queue.
#include <iostream>

#include "cluster_command.h"
#include "gpupool/kube/resource.h"
#include "job_target.h"
#include "numeric_flag.h"

namespace gpupool::cli {
namespace {

constexpr char kDeleteUsage[] =
    "Usage: gpupool delete NAME [-n NAMESPACE] [--kubeconfig FILE] [--context NAME]\n\n"
    "Deletes a TrainingJob. Its pods, which it owns, are deleted after it by the\n"
    "garbage collector, and the GPUs it held go back to its queue.\n";

}  // namespace

int RunDelete(Args args) {
  return RunClusterCommand(
      "delete", kDeleteUsage, args, [](Args all) { return ParseJobTarget(all, {}); },
      [](const JobTarget& target) {
        const auto client = ClientFor(target.cluster);
        const std::string ns = NamespaceOf(target.cluster, *client);
        OnJob(ns, target.name,
              [&] { return client->Delete(kube::resources::kTrainingJobs, ns, target.name); });
        std::cout << "trainingjob.gpupool.dev \"" << target.name << "\" deleted\n";
        return 0;
      });
}

}  // namespace gpupool::cli
