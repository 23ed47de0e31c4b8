// `gpupool logs NAME [--replica N] [-f]`: the logs of a TrainingJob's pods,
// read through the API server as `kubectl logs` reads them.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <optional>

#include "cluster_command.h"
#include "gpupool/kube/resource.h"
#include "gpupool/kube/transport.h"
#include "gpupool/operator/pod_view.h"
#include "job_target.h"
#include "numeric_flag.h"

namespace gpupool::cli {
namespace {

using Json = nlohmann::json;

constexpr char kLogsUsage[] =
    "Usage: gpupool logs NAME [--replica N] [-f] [-n NAMESPACE] [--kubeconfig FILE]\n"
    "                    [--context NAME]\n\n"
    "Prints the logs of a TrainingJob's pods (each replica's, headed by its pod's name,\n"
    "or replica N's alone). -f follows one replica's log as it grows (replica 0 unless\n"
    "--replica says otherwise) until the pod ends or Ctrl-C.\n";

struct LogsFlags {
  JobTarget target;
  std::optional<int> replica;
  bool follow = false;
};

LogsFlags ParseLogsFlags(Args args) {
  LogsFlags flags;
  flags.target = ParseJobTarget(args, {}, [&flags](Args all, std::size_t& i) {
    if (all[i] == "-f" || all[i] == "--follow") {
      flags.follow = true;
    } else if (IsFlag(all[i], "--replica")) {
      flags.replica = IntFlag("--replica", FlagValue(all, i, "--replica"), 0, 1'000'000);
    } else {
      return false;
    }
    return true;
  });
  if (flags.follow && !flags.replica) flags.replica = 0;
  return flags;
}

int ReplicaOf(const Json& pod) {
  const auto labels = pod["metadata"].value("labels", Json::object());
  try {
    return std::stoi(labels.value(op::kReplicaLabel, std::string("-1")));
  } catch (const std::exception&) {
    return -1;
  }
}

std::vector<Json> JobPods(kube::Client& client, const std::string& ns, const LogsFlags& flags) {
  kube::ListOptions options;
  options.label_selector = std::string(op::kJobLabel) + "=" + flags.target.name;
  std::vector<Json> pods;
  for (Json& pod : client.ListAll(kube::resources::kPods, ns, options).items) {
    if (!flags.replica || ReplicaOf(pod) == *flags.replica) pods.push_back(std::move(pod));
  }
  std::sort(pods.begin(), pods.end(),
            [](const Json& a, const Json& b) { return ReplicaOf(a) < ReplicaOf(b); });
  return pods;
}

std::string LogPath(const Json& pod, bool follow) {
  const Json& metadata = pod["metadata"];
  std::string path = "/api/v1/namespaces/" + metadata.value("namespace", std::string()) + "/pods/" +
                     metadata.value("name", std::string()) + "/log";
  const auto containers = pod["spec"].value("containers", Json::array());
  if (!containers.empty()) path += "?container=" + containers[0].value("name", std::string());
  if (follow) path += std::string(containers.empty() ? "?" : "&") + "follow=true";
  return path;
}

void PrintLog(kube::Client& client, const Json& pod) {
  std::cout << client.transport().Send({.path = LogPath(pod, false)}).body;
}

void FollowLog(kube::Client& client, const Json& pod) {
  const std::atomic<bool> stop{false};
  client.transport().Stream(
      {.path = LogPath(pod, true)},
      [](std::string_view data) {
        std::cout << data << std::flush;
        return true;
      },
      stop, std::chrono::hours(24));
}

void Logs(const LogsFlags& flags) {
  const auto client = ClientFor(flags.target.cluster);
  const std::string ns = NamespaceOf(flags.target.cluster, *client);
  OnJob(ns, flags.target.name,
        [&] { return client->Get(kube::resources::kTrainingJobs, ns, flags.target.name); });
  const auto pods = JobPods(*client, ns, flags);
  if (pods.empty()) {
    throw std::runtime_error(
        "TrainingJob " + flags.target.name + " has no pods" +
        (flags.replica ? " of replica " + std::to_string(*flags.replica) : "") +
        " (a job waiting in its queue has none: gpupool describe " + flags.target.name + ")");
  }
  if (flags.follow) return FollowLog(*client, pods.front());
  for (const Json& pod : pods) {
    if (pods.size() > 1) std::cout << "==> " << pod["metadata"].value("name", "") << " <==\n";
    PrintLog(*client, pod);
  }
}

}  // namespace

int RunLogs(Args args) {
  return RunClusterCommand("logs", kLogsUsage, args, ParseLogsFlags, [](const LogsFlags& flags) {
    Logs(flags);
    return 0;
  });
}

}  // namespace gpupool::cli
