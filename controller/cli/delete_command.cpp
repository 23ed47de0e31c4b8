// `gpupool delete NAME`: deletes a TrainingJob; its pods go with it (they are
// its dependents) and its GPUs return to the queue.
#include <iostream>

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
  if (WantsHelp(args)) {
    std::cout << kDeleteUsage;
    return 0;
  }
  JobTarget target;
  try {
    target = ParseJobTarget(args, {});
  } catch (const UsageError& error) {
    std::cerr << "gpupool delete: " << error.what() << "\n\n" << kDeleteUsage;
    return 2;
  }
  try {
    const auto client = ClientFor(target.cluster);
    client->Delete(kube::resources::kTrainingJobs, NamespaceOf(target.cluster, *client),
                   target.name);
    std::cout << "trainingjob.gpupool.dev \"" << target.name << "\" deleted\n";
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "gpupool delete: " << error.what() << "\n";
    return 1;
  }
}

}  // namespace gpupool::cli
