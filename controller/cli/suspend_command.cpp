// `gpupool suspend NAME` and `gpupool resume NAME`: set a TrainingJob's
// spec.suspend, as `kubectl patch` would. Suspended, its pods stop and it
// leaves its queue; resumed, it queues again at the back of its line.
#include <iostream>

#include "cluster_command.h"
#include "gpupool/kube/resource.h"
#include "job_target.h"
#include "numeric_flag.h"

namespace gpupool::cli {
namespace {

constexpr char kSuspendUsage[] =
    "Usage: gpupool suspend NAME [-n NAMESPACE] [--kubeconfig FILE] [--context NAME]\n\n"
    "Suspends a TrainingJob (spec.suspend: true, as a batch Job): its pods stop, a running\n"
    "job's within its queue's grace period (time to checkpoint), its GPUs go back to the\n"
    "queue, and it stays out of line, phase Suspended, until `gpupool resume NAME`.\n";

constexpr char kResumeUsage[] =
    "Usage: gpupool resume NAME [-n NAMESPACE] [--kubeconfig FILE] [--context NAME]\n\n"
    "Resumes a suspended TrainingJob (spec.suspend: false): it queues again, at the back\n"
    "of its project's line, and starts when it is admitted.\n";

int SetSuspend(Args args, bool suspend) {
  return RunClusterCommand(
      suspend ? "suspend" : "resume", suspend ? kSuspendUsage : kResumeUsage, args,
      [](Args all) { return ParseJobTarget(all, {}); },
      [suspend](const JobTarget& target) {
        const auto client = ClientFor(target.cluster);
        const std::string ns = NamespaceOf(target.cluster, *client);
        OnJob(ns, target.name, [&] {
          return client->Patch(kube::resources::kTrainingJobs, ns, target.name,
                               kube::PatchType::kMerge, {{"spec", {{"suspend", suspend}}}});
        });
        std::cout << "trainingjob.gpupool.dev/" << target.name
                  << (suspend ? " suspended" : " resumed") << "\n";
        return 0;
      });
}

}  // namespace

int RunSuspend(Args args) { return SetSuspend(args, true); }
int RunResume(Args args) { return SetSuspend(args, false); }

}  // namespace gpupool::cli
