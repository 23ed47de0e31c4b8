#include "bench_cluster.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "chart_defaults.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/errors.h"

namespace gpupool::bench {
namespace {

namespace resources = kube::resources;

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

ProcessUse UseOf(pid_t pid) {
  ProcessUse use;
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return use;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  // After the command: state is field 3; utime and stime are fields 14 and 15.
  for (int index = 3; index <= 15 && fields >> field; ++index) {
    if (index == 14) utime = std::stoull(field);
    if (index == 15) stime = std::stoull(field);
  }
  use.cpu_seconds = static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  std::istringstream status(ReadFile("/proc/" + std::to_string(pid) + "/status"));
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) use.rss_mb = std::stod(line.substr(6)) / 1024.0;
    if (line.rfind("VmHWM:", 0) == 0) use.peak_rss_mb = std::stod(line.substr(6)) / 1024.0;
  }
  return use;
}

BenchCluster::BenchCluster(const std::string& nodes) {
  sandbox_ = std::make_unique<sandbox::testing::SandboxProcess>(
      std::vector<std::string>{"--nodes", nodes, "--time-scale", "1", "--start-seconds", "0"});
  if (sandbox_->Kubectl("apply -f " + sandbox::testing::SourcePath("crds")).exit_code != 0 ||
      sandbox_->Kubectl("wait --for=condition=Established crd --all --timeout=60s").exit_code != 0)
    throw std::runtime_error("could not install the CRDs");
  kube::TransportOptions transport;
  transport.qps = 100000;  // The load generator is not rate-limited.
  transport.burst = 100000;
  client_ =
      std::make_unique<kube::Client>(kube::LoadKubeconfig({sandbox_->kubeconfig()}), transport);
}

void BenchCluster::CreateNamespace(const std::string& name) {
  client_->Create(resources::kNamespaces, "",
                  {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}});
}

void BenchCluster::CreateQueue(const std::string& name, const std::string& pool) {
  const Json queue = {{"apiVersion", "gpupool.dev/v1alpha1"},
                      {"kind", "Queue"},
                      {"metadata", {{"name", name}}},
                      {"spec",
                       {{"sharing", "Guaranteed"},
                        {"nodeSelector", {{"pool", pool}}},
                        {"preemption", {{"minRuntimeSeconds", 0}, {"gracePeriodSeconds", 0}}}}}};
  client_->Create(resources::kQueues, "", queue);
}

void BenchCluster::CreateProject(const std::string& name, const std::string& queue, int gpus,
                                 int limit) {
  Json quota = {{"queue", queue}, {"gpu", gpus}};
  if (limit > 0) quota["limit"] = limit;
  const Json project = {{"apiVersion", "gpupool.dev/v1alpha1"},
                        {"kind", "Project"},
                        {"metadata", {{"name", name}}},
                        {"spec", {{"namespaces", {name}}, {"quotas", {quota}}}}};
  CreateNamespace(name);
  client_->Create(resources::kProjects, "", project);
  projects_.push_back(name);
}

void BenchCluster::StartController(std::vector<std::string> extra_flags) {
  // The chart's defaults, as an admin installs them; a later flag overrides an earlier.
  std::vector<std::string> flags = op::testing::ChartDefaultArgs();
  flags.insert(flags.end(), extra_flags.begin(), extra_flags.end());
  // Flags to compare settings with, e.g. GPUPOOL_BENCH_CONTROLLER_FLAGS="--pause-per-plan 0".
  if (const char* more = std::getenv("GPUPOOL_BENCH_CONTROLLER_FLAGS")) {
    std::istringstream words(more);
    for (std::string word; words >> word;) flags.push_back(word);
  }
  controller_ = std::make_unique<op::testing::ControllerProcess>(
      "controller", sandbox_->kubeconfig(), sandbox_->dir() + "/controller.log", flags);
  controller_->Start();
  for (int attempt = 0; attempt < 600; ++attempt) {
    bool all = true;
    for (const Json& project : client_->ListAll(resources::kProjects, "").items)
      all = all && project.contains("status");
    if (all) return;
    if (!controller_->Running()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw std::runtime_error("the controller did not start:\n" + ControllerLog());
}

std::string BenchCluster::ControllerLog() const {
  return ReadFile(sandbox_->dir() + "/controller.log");
}

CycleSummary SummarizeCycles(const std::string& log) {
  static const std::regex kCycle(
      R"(cycle: \d+ jobs, \d+ admitted, \d+ preempted, (\d+) writes \(\d+ failed\), plan )"
      R"(([0-9.]+) ms[^,]*, writes ([0-9.]+) ms)");
  CycleSummary summary;
  std::istringstream lines(log);
  std::string line;
  std::smatch match;
  while (std::getline(lines, line)) {
    if (!std::regex_search(line, match, kCycle)) continue;
    ++summary.cycles;
    summary.writes += std::stod(match[1]);
    summary.plan_ms += std::stod(match[2]);
    summary.write_ms += std::stod(match[3]);
  }
  if (summary.cycles > 0) {
    summary.writes /= summary.cycles;
    summary.plan_ms /= summary.cycles;
    summary.write_ms /= summary.cycles;
  }
  return summary;
}

void PrintUse(const ProcessUse& controller, const ProcessUse& sandbox,
              const std::string& controller_log) {
  std::printf("CPU seconds: controller %.1f, sandbox %.1f; RSS MB: controller %.0f, sandbox %.0f\n",
              controller.cpu_seconds, sandbox.cpu_seconds, controller.rss_mb, sandbox.rss_mb);
  const CycleSummary cycles = SummarizeCycles(controller_log);
  std::printf("controller cycles that wrote: %d, mean %.0f writes, plan %.1f ms, writes %.1f ms\n",
              cycles.cycles, cycles.writes, cycles.plan_ms, cycles.write_ms);
}

Json OneReplicaJob(const std::string& ns, const std::string& name, const std::string& queue,
                   int gpus, int priority, double run_seconds) {
  Json annotations = Json::object();
  if (run_seconds > 0) annotations["sandbox.gpupool.dev/run-seconds"] = std::to_string(run_seconds);
  return {{"apiVersion", "gpupool.dev/v1alpha1"},
          {"kind", "TrainingJob"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"queue", queue},
            {"gpusPerReplica", gpus},
            {"priority", priority},
            {"template",
             {{"metadata", {{"annotations", annotations}}},
              {"spec", {{"containers", {{{"name", "main"}, {"image", "trainer"}}}}}}}}}}};
}

}  // namespace gpupool::bench
