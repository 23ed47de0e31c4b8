#include "job_target.h"

#include "gpupool/kube/resource.h"
#include "numeric_flag.h"

namespace gpupool::cli {

JobTarget ParseJobTarget(Args args, const std::set<std::string>& formats,
                         const OwnFlagReader& own) {
  JobTarget target;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (ReadClusterFlag(args, i, target.cluster, formats)) continue;
    if (own && own(args, i)) continue;
    if (args[i].rfind("-", 0) == 0 || !target.name.empty())
      throw UsageError("unknown argument \"" + args[i] + "\"");
    target.name = args[i];
  }
  if (target.name.empty()) throw UsageError("which TrainingJob? NAME is missing");
  if (target.cluster.all_namespaces) throw UsageError("-A: NAME is one job of one namespace");
  return target;
}

bool IsNoSuchJob(const kube::ApiError& error, const std::string& name) {
  const kube::StatusObject& missing = error.object();
  return kube::IsNotFound(error) && missing.kind == kube::resources::kTrainingJobs.resource &&
         missing.group == kube::resources::kTrainingJobs.group && missing.name == name;
}

std::string NoSuchJob(const std::string& ns, const std::string& name) {
  return "no TrainingJob named " + name + " in namespace " + ns + " (gpupool list -n " + ns +
         " lists its jobs)";
}

}  // namespace gpupool::cli
