// `gpupool submit NAME --project P --gpus N --image I [-- COMMAND…]`: creates a
// TrainingJob in its project's namespace and queue, refusing before anything
// is created what could never run; --wait follows it until it runs.
#include <chrono>
#include <iostream>
#include <thread>

#include "cluster_command.h"
#include "gpupool/json/field_error.h"
#include "gpupool/json/yaml.h"
#include "gpupool/kube/resource.h"
#include "job_rows.h"
#include "numeric_flag.h"
#include "object_check.h"
#include "submit_request.h"
#include "submit_target.h"

namespace gpupool::cli {
namespace {

using Json = nlohmann::json;

constexpr char kSubmitUsage[] =
    "Usage: gpupool submit NAME --project P --gpus N --image IMAGE [--queue Q]\n"
    "                      [--replicas R] [--class Train|Build|Inference] [--priority N]\n"
    "                      [--env KEY=VALUE]... [--volume CLAIM:/PATH[:ro]]...\n"
    "                      [--topology KEY[:Required|:Preferred]]\n"
    "                      [--wait [--timeout SECONDS]] [--dry-run] [-o yaml|json]\n"
    "                      [--kubeconfig FILE] [--context NAME] [-n NAMESPACE]\n"
    "                      [-- COMMAND [ARG]...]\n\n"
    "Creates a TrainingJob: R replicas of IMAGE with N GPUs each (a fraction such as 0.5\n"
    "for one replica), in project P's namespace (or -n, one of its namespaces) and in\n"
    "queue Q (by default the project's only queue). An unknown project, a queue the\n"
    "project has no quota in, or more GPUs than the queue could ever give are refused\n"
    "before anything is created. --wait follows the job until it runs, printing why it\n"
    "waits as that changes; --dry-run prints the TrainingJob instead of creating it.\n";

SubmitTarget Resolve(kube::Client& client, const SubmitRequest& request) {
  return ResolveTarget(request, client.ListAll(kube::resources::kProjects, "").items,
                       client.ListAll(kube::resources::kQueues, "").items);
}

void CheckJob(const Json& job) {
  for (const auto& check : CheckDocument(job)) {
    if (check.verdict != Verdict::kInvalid) continue;
    throw SubmitRefused("the TrainingJob would be refused: " + json::JoinErrors(check.errors));
  }
}

void Print(const Json& object, const std::string& output) {
  if (output == "json") {
    std::cout << object.dump(2) << "\n";
  } else {
    std::cout << json::ToYaml(object);
  }
}

// Polls the job once a second; prints each new phase or reason. 0 once it runs
// (or has finished well), 1 when it fails or the timeout passes first.
int FollowJob(kube::Client& client, const SubmitRequest& request, const std::string& ns) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(request.wait_timeout_seconds);
  std::string shown;
  while (request.wait_timeout_seconds == 0 || std::chrono::steady_clock::now() < deadline) {
    const JobRow row = ToRow(client.Get(kube::resources::kTrainingJobs, ns, request.name), 0);
    const std::string line = row.phase.empty()
                                 ? "created; the controller has not seen it yet"
                                 : row.phase + (row.reason.empty() ? "" : ": " + row.reason);
    if (line != shown) std::cout << request.name << ": " << line << std::endl;
    shown = line;
    if (row.phase == "Running" || row.phase == "Succeeded") return 0;
    if (row.phase == "Failed") return 1;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  std::cerr << "gpupool submit: " << request.name << " is not running after "
            << request.wait_timeout_seconds << "s (--timeout)\n";
  return 1;
}

int Submit(const SubmitRequest& request) {
  const auto client = ClientFor(request.cluster);
  const SubmitTarget target = Resolve(*client, request);
  const Json job = BuildTrainingJob(request, target.ns, target.queue);
  CheckJob(job);
  if (request.dry_run) {
    Print(job, request.cluster.output);
    return 0;
  }
  const Json created = client->Create(kube::resources::kTrainingJobs, target.ns, job);
  if (request.cluster.output.empty()) {
    std::cout << "trainingjob.gpupool.dev/" << request.name << " created in namespace " << target.ns
              << " (project " << request.project << ", queue " << target.queue << ")" << std::endl;
  } else {
    Print(created, request.cluster.output);
  }
  return request.wait ? FollowJob(*client, request, target.ns) : 0;
}

}  // namespace

int RunSubmit(Args args) {
  return RunClusterCommand(
      "submit", kSubmitUsage, args, ParseSubmitFlags, [](const SubmitRequest& request) {
        try {
          return Submit(request);
        } catch (const SubmitRefused& refused) {
          throw std::runtime_error(std::string("refused, nothing created: ") + refused.what());
        }
      });
}

}  // namespace gpupool::cli
