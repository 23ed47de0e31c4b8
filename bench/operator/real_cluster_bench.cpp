// Admission on a real control plane: kube-apiserver + etcd + kube-scheduler +
// kube-controller-manager (scripts/control-plane), `gpupool simulate-nodes`
// for the GPU nodes, and `gpupool controller` with the chart's default flags
// (the Deployment's args in manifests/). One-pod TrainingJobs are created at a
// steady rate; reports the rate at which their pods run (bound by the real
// scheduler, Running on their simulated node), the time from a job's create to
// its pod Running (p50, p99), and the CPU each process used: which component
// bounds admission on a real cluster. GPUPOOL_BENCH_CONTROLLER_FLAGS adds
// controller flags; GPUPOOL_SCHEDULER_QPS raises kube-scheduler's client limit.
// Usage: real_cluster_bench [jobs per second] [seconds] [version]
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "bench_cluster.h"
#include "load_generator.h"
#include "start_watch.h"
#include "test_cluster.h"

namespace {

using Clock = std::chrono::steady_clock;
using gpupool::kube::Json;
namespace resources = gpupool::kube::resources;
namespace testing = gpupool::backends::testing;

double Seconds(Clock::duration duration) { return std::chrono::duration<double>(duration).count(); }

double Percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<std::size_t>(fraction * values.size()))];
}

// The chart's controller flags: the Deployment's args, metrics and probes on free ports.
std::vector<std::string> ChartControllerFlags() {
  const auto deployments = gpupool::bench::ManifestObjects("Deployment");
  if (deployments.empty()) throw std::runtime_error("no Deployment in manifests/gpupool.yaml");
  auto args = deployments[0]["spec"]["template"]["spec"]["containers"][0]["args"]
                  .get<std::vector<std::string>>();
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--metrics-bind-address" || args[i] == "--health-probe-bind-address")
      args[i + 1] = "127.0.0.1:0";
  }
  args.insert(args.end(), {"--log-level", "info"});
  // Flags to compare settings with, e.g. GPUPOOL_BENCH_CONTROLLER_FLAGS="--qps 1000".
  if (const char* more = std::getenv("GPUPOOL_BENCH_CONTROLLER_FLAGS")) {
    std::istringstream words(more);
    for (std::string word; words >> word;) args.push_back(word);
  }
  return args;
}

struct PodRunning {
  std::string key;
  bool running = false;
};

PodRunning DecodePodRunning(const Json& pod) {
  const Json& metadata = pod["metadata"];
  return {metadata.value("namespace", "") + "/" + metadata.value("name", ""),
          pod.value("status", Json::object()).value("phase", "") == "Running"};
}

void Run(int rate, int seconds, const std::string& version) {
  const int jobs = rate * seconds;
  testing::TestCluster& cluster = testing::ClusterFor(version);
  if (cluster.Kubectl("apply -f crds/").exit_code != 0 ||
      cluster.Kubectl("wait --for=condition=Established crd --all --timeout=60s").exit_code != 0)
    throw std::runtime_error("the CRDs did not install");
  gpupool::kube::TransportOptions transport;
  transport.qps = 100000;  // The load generator is not rate-limited.
  transport.burst = 100000;
  gpupool::kube::Client client(gpupool::kube::LoadKubeconfig({cluster.kubeconfig()}), transport);
  cluster.Kubectl("create namespace load");
  cluster.Kubectl("create namespace gpupool-system");  // the chart's leader-election Lease
  cluster.Kubectl("apply -f examples/queues.yaml");
  // The chart creates the PriorityClasses its pods name and tells the controller so
  // (--skip-priority-classes among the Deployment's args).
  const gpupool::kube::Resource priority_classes{"scheduling.k8s.io", "v1", "priorityclasses",
                                                 false};
  for (const Json& priority_class : gpupool::bench::ManifestObjects("PriorityClass"))
    client.Create(priority_classes, "", priority_class);
  client.Create(
      resources::kProjects, "",
      {{"apiVersion", "gpupool.dev/v1alpha1"},
       {"kind", "Project"},
       {"metadata", {{"name", "load"}}},
       {"spec", {{"namespaces", {"load"}}, {"quotas", {{{"queue", "train"}, {"gpu", jobs}}}}}}});
  gpupool::op::testing::GpupoolProcess nodes(
      "simulate-nodes", cluster.kubeconfig(), cluster.dir() + "/simulate-nodes.log",
      {"--nodes", std::to_string(jobs / 8 + 1) + "x8:pool=train", "--start-seconds", "0"});
  nodes.Start();
  gpupool::op::testing::ControllerProcess controller("controller", cluster.kubeconfig(),
                                                     cluster.dir() + "/controller.log",
                                                     ChartControllerFlags());
  // Nodes registered and untainted before the controller plans on them.
  for (int i = 0; i < 600; ++i) {
    const auto tainted = cluster.Kubectl("get nodes -o jsonpath='{.items[*].spec.taints}'");
    const auto count = cluster.Kubectl("get nodes --no-headers").output;
    if (tainted.output.empty() && std::count(count.begin(), count.end(), '\n') == jobs / 8 + 1)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  controller.Start();
  std::this_thread::sleep_for(std::chrono::seconds(3));

  std::mutex mutex;
  std::unordered_map<std::string, Clock::time_point> created, running;
  auto watch = gpupool::bench::StartWatch<PodRunning>(client, resources::kPods, DecodePodRunning,
                                                      {}, [&](const PodRunning& pod) {
                                                        std::lock_guard lock(mutex);
                                                        if (pod.running && !running.count(pod.key))
                                                          running[pod.key] = Clock::now();
                                                      });
  std::map<std::string, double> cpu_before;
  const auto pids = gpupool::bench::ControlPlanePids(cluster.dir());
  for (const auto& [name, pid] : pids) cpu_before[name] = gpupool::bench::UseOf(pid).cpu_seconds;
  cpu_before["gpupool controller"] = gpupool::bench::UseOf(controller.pid()).cpu_seconds;
  cpu_before["gpupool simulate-nodes"] = gpupool::bench::UseOf(nodes.pid()).cpu_seconds;

  std::vector<gpupool::bench::Scheduled> items;
  for (int i = 0; i < jobs; ++i) {
    const std::string name = "job-" + std::to_string(i);
    items.push_back({static_cast<double>(i) / rate, [&, name] {
                       {
                         std::lock_guard lock(mutex);
                         created["load/" + name + "-0"] = Clock::now();
                       }
                       client.Create(resources::kTrainingJobs, "load",
                                     gpupool::bench::OneReplicaJob("load", name, "train", 1, 0, 0),
                                     gpupool::bench::kAnswerUnread);
                     }});
  }
  const auto start = Clock::now();
  const auto generated = gpupool::bench::RunSchedule(std::move(items), 8);
  const auto deadline = Clock::now() + std::chrono::minutes(5);
  const auto done = [&] {
    std::lock_guard lock(mutex);
    return running.size() >= static_cast<std::size_t>(jobs) - generated.failed;
  };
  while (!done() && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double elapsed = Seconds(Clock::now() - start);

  std::map<std::string, double> cpu;
  for (const auto& [name, pid] : pids)
    cpu[name] = gpupool::bench::UseOf(pid).cpu_seconds - cpu_before[name];
  cpu["gpupool controller"] =
      gpupool::bench::UseOf(controller.pid()).cpu_seconds - cpu_before["gpupool controller"];
  cpu["gpupool simulate-nodes"] =
      gpupool::bench::UseOf(nodes.pid()).cpu_seconds - cpu_before["gpupool simulate-nodes"];
  std::vector<double> latencies;
  std::size_t within = 0;
  {
    std::lock_guard lock(mutex);
    for (const auto& [key, at] : running) {
      const auto made = created.find(key);
      if (made != created.end()) latencies.push_back(Seconds(at - made->second));
      within += Seconds(at - start) <= seconds;
    }
  }
  std::printf(
      "Kubernetes %s: %d jobs asked at %d/s for %d s; created in %.1f s (%zu failed): "
      "%.0f jobs/s\n",
      version.c_str(), jobs, rate, seconds, generated.seconds, generated.failed,
      jobs / generated.seconds);
  std::printf(
      "pods Running: %zu of %d, the last %.1f s after the first create; %.0f pods/s "
      "over the %d s of load, %.0f pods/s over the whole run\n",
      latencies.size(), jobs, elapsed, static_cast<double>(within) / seconds, seconds,
      static_cast<double>(latencies.size()) / elapsed);
  std::printf("create -> pod Running: p50 %.2f s, p99 %.2f s\n", Percentile(latencies, 0.5),
              Percentile(latencies, 0.99));
  double total = 0;
  for (const auto& [name, seconds_used] : cpu) total += seconds_used;
  std::printf("CPU seconds during the run (%.0f in all, %.1f s of 2 cores):\n", total, elapsed);
  for (const auto& [name, seconds_used] : cpu)
    std::printf("  %-24s %6.1f  (%4.1f %%)\n", name.c_str(), seconds_used,
                100 * seconds_used / std::max(total, 1e-9));
  if (latencies.empty()) {
    std::ifstream log(cluster.dir() + "/controller.log");
    std::stringstream text;
    text << log.rdbuf();
    std::printf("no pod ran; the controller's log:\n%s\n", text.str().c_str());
  }
  watch->Stop();
  nodes.Kill(SIGTERM);
}

}  // namespace

int main(int argc, char** argv) {
  const int rate = argc > 1 ? std::atoi(argv[1]) : 100;
  const int seconds = argc > 2 ? std::atoi(argv[2]) : 20;
  const std::string version = argc > 3 ? argv[3] : gpupool::backends::testing::Backends().back();
  if (rate < 1 || rate > 10000 || seconds < 1 || seconds > 600) {
    std::fprintf(stderr,
                 "usage: real_cluster_bench [jobs per second 1-10000] [seconds 1-600] "
                 "[version folder]\n");
    return 2;
  }
  if (version == "real") {
    std::fprintf(stderr, "real_cluster_bench: no Kubernetes binaries in %s (GPUPOOL_K8S_DIR)\n",
                 gpupool::backends::testing::KubernetesDir().c_str());
    return 2;
  }
  try {
    Run(rate, seconds, version);
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "real_cluster_bench: %s\n", error.what());
    return 1;
  }
}
