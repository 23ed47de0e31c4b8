#include "bench_cluster.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "chart_defaults.h"
#include "gpupool/json/yaml.h"
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

std::vector<Json> ManifestObjects(const std::string& kind) {
  std::vector<Json> objects;
  for (const Json& object :
       json::LoadYamlFile(sandbox::testing::SourcePath("manifests/gpupool.yaml")))
    if (object.value("kind", "") == kind) objects.push_back(object);
  return objects;
}

BenchCluster::BenchCluster(const std::string& nodes, const std::string& backend) {
  const auto kubectl = [&](const std::string& arguments) {
    return sandbox_ ? sandbox_->Kubectl(arguments) : real_->Kubectl(arguments);
  };
  if (backend == "sandbox") {
    sandbox_ = std::make_unique<sandbox::testing::SandboxProcess>(
        std::vector<std::string>{"--nodes", nodes, "--time-scale", "1", "--start-seconds", "0"});
    kubeconfig_ = sandbox_->kubeconfig();
    dir_ = sandbox_->dir();
  } else {
    real_ = &backends::testing::ClusterFor(backend);
    kubeconfig_ = real_->kubeconfig();
    dir_ = real_->dir();
  }
  if (kubectl("apply -f " + sandbox::testing::SourcePath("crds")).exit_code != 0 ||
      kubectl("wait --for=condition=Established crd --all --timeout=60s").exit_code != 0)
    throw std::runtime_error("could not install the CRDs");
  kube::TransportOptions transport;
  transport.qps = 100000;  // The load generator is not rate-limited.
  transport.burst = 100000;
  client_ = std::make_unique<kube::Client>(kube::LoadKubeconfig({kubeconfig_}), transport);
  if (real_) PrepareRealCluster(nodes);
}

BenchCluster::~BenchCluster() {
  controller_.reset();
  if (simulated_nodes_) simulated_nodes_->Kill(SIGTERM);
}

void BenchCluster::PrepareRealCluster(const std::string& nodes) {
  // The chart creates the PriorityClasses its pods name and tells the controller
  // so (--skip-priority-classes), and the namespace of its leader-election Lease.
  const kube::Resource priority_classes{"scheduling.k8s.io", "v1", "priorityclasses", false};
  for (const Json& priority_class : ManifestObjects("PriorityClass"))
    client_->Create(priority_classes, "", priority_class);
  CreateNamespace("gpupool-system");
  simulated_nodes_ = std::make_unique<op::testing::GpupoolProcess>(
      "simulate-nodes", kubeconfig_, dir_ + "/simulate-nodes.log",
      std::vector<std::string>{"--nodes", nodes, "--start-seconds", "0"});
  simulated_nodes_->Start();
  for (int attempt = 0; attempt < 600; ++attempt) {  // Registered and untainted.
    const auto listed = client_->ListAll(resources::kNodes, "").items;
    const bool ready =
        !listed.empty() && std::none_of(listed.begin(), listed.end(), [](const Json& node) {
          return node.value("spec", Json::object()).contains("taints");
        });
    if (ready && simulated_nodes_->Running()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  throw std::runtime_error("the simulated nodes did not register:\n" +
                           ReadFile(dir_ + "/simulate-nodes.log"));
}

std::vector<std::pair<std::string, pid_t>> ControlPlanePids(const std::string& dir) {
  std::vector<std::pair<std::string, pid_t>> pids;
  std::ifstream file(dir + "/pids");  // scripts/control-plane's: "name pid" lines.
  std::string name;
  pid_t pid = 0;
  while (file >> name >> pid) pids.emplace_back(name, pid);
  return pids;
}

ProcessUses BenchCluster::ServerUse() const {
  if (sandbox_) return {{"sandbox", UseOf(sandbox_->pid())}};
  ProcessUses uses;
  for (const auto& [name, pid] : ControlPlanePids(dir_)) uses.emplace_back(name, UseOf(pid));
  uses.emplace_back("simulate-nodes", UseOf(simulated_nodes_->pid()));
  return uses;
}

ProcessUse BenchCluster::SandboxUse() const {
  ProcessUse sum;
  for (const auto& [name, use] : ServerUse()) {
    sum.cpu_seconds += use.cpu_seconds;
    sum.rss_mb += use.rss_mb;
    sum.peak_rss_mb += use.peak_rss_mb;
  }
  return sum;
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
  controller_ = std::make_unique<op::testing::ControllerProcess>("controller", kubeconfig_,
                                                                 dir_ + "/controller.log", flags);
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

std::string BenchCluster::ControllerLog() const { return ReadFile(dir_ + "/controller.log"); }

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

namespace {

void PrintCycles(const std::string& controller_log) {
  const CycleSummary cycles = SummarizeCycles(controller_log);
  std::printf("controller cycles that wrote: %d, mean %.0f writes, plan %.1f ms, writes %.1f ms\n",
              cycles.cycles, cycles.writes, cycles.plan_ms, cycles.write_ms);
}

}  // namespace

void PrintUse(const ProcessUse& controller, const ProcessUse& sandbox,
              const std::string& controller_log) {
  std::printf("CPU seconds: controller %.1f, sandbox %.1f; RSS MB: controller %.0f, sandbox %.0f\n",
              controller.cpu_seconds, sandbox.cpu_seconds, controller.rss_mb, sandbox.rss_mb);
  PrintCycles(controller_log);
}

void PrintUse(const ProcessUse& controller, const ProcessUses& cluster,
              const std::string& controller_log) {
  double total = controller.cpu_seconds;
  for (const auto& [name, use] : cluster) total += use.cpu_seconds;
  std::printf("CPU seconds: controller %.1f (%.1f %% of all)", controller.cpu_seconds,
              total > 0 ? 100 * controller.cpu_seconds / total : 0);
  for (const auto& [name, use] : cluster) std::printf(", %s %.1f", name.c_str(), use.cpu_seconds);
  std::printf("; controller RSS %.0f MB\n", controller.rss_mb);
  PrintCycles(controller_log);
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
