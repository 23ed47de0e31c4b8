// The controller's cost per admitted job, through a real API server: N one-pod
// TrainingJobs are created at once on a `gpupool sandbox` process (nodes of 8 GPUs
// with room for all), and the in-process controller runs until every job runs.
// Reports API writes per job (status patches, pod creates and releases, Events)
// and, per cycle, the time from the last watch event to the end of its writes.
// The controller gets the chart's default tuning values (helm/gpupool/values.yaml).
// Usage: operator_bench [jobs]   (default 400; nodes: jobs / 8 + 1)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <thread>

#include "chart_defaults.h"
#include "gpupool/kube/config.h"
#include "gpupool/operator/controller.h"
#include "sandbox_process.h"

namespace {

using gpupool::kube::Json;
using Clock = std::chrono::steady_clock;
namespace resources = gpupool::kube::resources;

using gpupool::sandbox::testing::SandboxProcess;

void Install(const SandboxProcess& sandbox) {
  const std::string source = GPUPOOL_SOURCE_DIR;
  if (sandbox.Kubectl("apply -f " + source + "/crds").exit_code != 0 ||
      sandbox.Kubectl("wait --for=condition=Established crd --all --timeout=30s").exit_code != 0 ||
      sandbox.Kubectl("apply -f " + source + "/examples/queues.yaml").exit_code != 0)
    throw std::runtime_error("could not install the API");
}

Json Job(int index) {
  return {{"apiVersion", "gpupool.dev/v1alpha1"},
          {"kind", "TrainingJob"},
          {"metadata", {{"name", "job-" + std::to_string(index)}, {"namespace", "bench"}}},
          {"spec",
           {{"queue", "train"},
            {"gpusPerReplica", 1},
            {"template",
             {{"metadata", {{"annotations", {{"sandbox.gpupool.dev/run-seconds", "100000"}}}}},
              {"spec", {{"containers", {{{"name", "main"}, {"image", "trainer"}}}}}}}}}}};
}

// The chart's tuning flags, as `gpupool controller` would apply them.
void ApplyChartDefaults(gpupool::kube::TransportOptions& transport,
                        gpupool::op::ControllerOptions& options) {
  const std::vector<std::string> args = gpupool::op::testing::ChartDefaultArgs();
  for (std::size_t i = 0; i + 1 < args.size(); i += 2) {
    const std::string& flag = args[i];
    const std::string& value = args[i + 1];
    if (flag == "--qps") transport.qps = std::stod(value);
    if (flag == "--burst") transport.burst = std::stoi(value);
    if (flag == "--concurrent-writes") options.concurrent_writes = std::stoi(value);
    if (flag == "--status-writes-per-cycle") options.status_writes_per_cycle = std::stoul(value);
    if (flag == "--gated-pods-per-cycle") options.gated_pods_per_cycle = std::stoul(value);
    if (flag == "--waiting-pods") options.plan.gated_waiting_pods = value == "gated";
    if (flag == "--pause-per-plan") options.pause_per_plan = std::stod(value);
    if (flag == "--start-timeout-seconds") options.plan.start_timeout_seconds = std::stoi(value);
    if (flag == "--resync-seconds") options.resync = std::chrono::seconds(std::stoi(value));
  }
}

int CountRunning(gpupool::kube::Client& client) {
  int running = 0;
  for (const Json& job : client.ListAll(resources::kTrainingJobs, "bench").items)
    running += job.value("status", Json::object()).value("phase", "") == "Running";
  return running;
}

}  // namespace

int main(int argc, char** argv) {
  const int jobs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 400;
  SandboxProcess sandbox(
      {"--nodes", std::to_string(jobs / 8 + 1) + "x8:pool=train", "--time-scale", "10"});
  Install(sandbox);
  gpupool::kube::TransportOptions transport;
  gpupool::op::ControllerOptions options;
  ApplyChartDefaults(transport, options);
  gpupool::kube::Client client(gpupool::kube::LoadKubeconfig({sandbox.kubeconfig()}), transport);
  const Json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "bench"}}}};
  client.Create(resources::kNamespaces, "", ns);
  Json project = {{"apiVersion", "gpupool.dev/v1alpha1"},
                  {"kind", "Project"},
                  {"metadata", {{"name", "bench"}}}};
  project["spec"]["namespaces"] = Json::array({"bench"});
  project["spec"]["quotas"] = Json::array({{{"queue", "train"}, {"gpu", jobs}}});
  client.Create(resources::kProjects, "", project);
  gpupool::kube::EventRecorder events(client);
  std::vector<gpupool::op::CycleReport> reports;
  std::mutex mutex;
  options.on_cycle = [&](const gpupool::op::CycleReport& report) {
    std::lock_guard lock(mutex);
    reports.push_back(report);
  };
  gpupool::op::Controller controller(client, &events, options);
  if (!controller.Start(std::chrono::seconds(30))) return 1;
  std::atomic<bool> stop{false};
  std::thread loop([&] { controller.Run(stop); });
  const auto start = Clock::now();
  for (int i = 0; i < jobs; ++i) client.Create(resources::kTrainingJobs, "bench", Job(i));
  while (CountRunning(client) < jobs && Clock::now() - start < std::chrono::minutes(5))
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::this_thread::sleep_for(std::chrono::seconds(2));  // Let the last statuses land.
  stop = true;
  loop.join();
  events.Flush(std::chrono::seconds(10));
  std::size_t writes = 0;
  std::vector<double> latency;
  for (const auto& report : reports) {
    writes += report.writes;
    if (report.writes > 0) latency.push_back(report.event_to_done_ms);
  }
  std::sort(latency.begin(), latency.end());
  const auto stats = events.stats();
  const double event_writes = static_cast<double>(stats.created + stats.aggregated);
  std::printf("jobs %d, all running after %.1f s, %zu cycles\n", jobs, seconds, reports.size());
  std::printf("API writes per admitted job: %.2f without Events, %.2f with Events\n",
              static_cast<double>(writes) / jobs,
              (static_cast<double>(writes) + event_writes) / jobs);
  if (!latency.empty())
    std::printf(
        "last event -> end of the cycle's writes: median %.1f ms, p90 %.1f ms, max %.1f ms\n",
        latency[latency.size() / 2], latency[latency.size() * 9 / 10], latency.back());
  return 0;
}
