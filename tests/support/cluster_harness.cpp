#include "cluster_harness.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "loopback_port.h"

namespace gpupool::op::testing {
namespace {

using Clock = std::chrono::steady_clock;

int harnesses_made = 0;  // harnesses made by this process, each with a folder of its own

constexpr char kWebhookNamespace[] = "gpupool-system";
constexpr char kWebhookConfiguration[] = "gpupool-test-pods";

// The chart's pod webhook (templates/webhook.yaml) at `url`, its CA bundle left
// to the controller to write.
std::string WebhookConfigurationYaml(const std::string& url) {
  return std::string(
             "apiVersion: admissionregistration.k8s.io/v1\n"
             "kind: MutatingWebhookConfiguration\n"
             "metadata:\n  name: ") +
         kWebhookConfiguration +
         "\n  labels: {app.kubernetes.io/part-of: gpupool}\n"
         "webhooks:\n"
         "- name: pods.gpupool.dev\n"
         "  clientConfig: {url: \"" +
         url +
         "\"}\n"
         "  rules: [{apiGroups: [\"\"], apiVersions: [v1], resources: [pods],"
         " operations: [CREATE, UPDATE], scope: Namespaced}]\n"
         "  objectSelector:\n    matchExpressions:\n"
         "    - {key: gpupool.dev/queue, operator: Exists}\n"
         "    - {key: gpupool.dev/job, operator: DoesNotExist}\n"
         "  failurePolicy: Fail\n  sideEffects: None\n  timeoutSeconds: 10\n"
         "  admissionReviewVersions: [v1]\n";
}

}  // namespace

GpupoolProcess::GpupoolProcess(std::string command, std::string kubeconfig, std::string log_path,
                               std::vector<std::string> flags)
    : command_(std::move(command)),
      kubeconfig_(std::move(kubeconfig)),
      log_path_(std::move(log_path)),
      flags_(std::move(flags)) {}

GpupoolProcess::~GpupoolProcess() {
  if (pid_ > 0) Kill(SIGKILL);
}

void GpupoolProcess::Start() {
  std::vector<std::string> args = {GPUPOOL_BINARY, command_, "--kubeconfig", kubeconfig_};
  if (command_ == "controller") {
    // Any free ports: tests run side by side, and a restarted controller must not
    // wait for its predecessor's ports. A flag of the test's own comes later and wins.
    for (const char* flag : {"--start-timeout-seconds", "60", "--metrics-bind-address",
                             "127.0.0.1:0", "--health-probe-bind-address", "127.0.0.1:0"})
      args.push_back(flag);
  }
  args.insert(args.end(), flags_.begin(), flags_.end());
  pid_ = fork();
  if (pid_ == 0) {
    // Gone with the test, even one killed: nothing of it keeps a cluster busy.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    if (freopen(log_path_.c_str(), "a", stdout) && freopen(log_path_.c_str(), "a", stderr))
      execv(argv[0], argv.data());
    _exit(127);
  }
}

void GpupoolProcess::Kill(int signal) {
  if (pid_ <= 0) return;
  kill(pid_, signal);
  for (int i = 0; i < 250; ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

bool GpupoolProcess::Running() { return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; }

namespace {

// The CA of the sandbox's serving certificate, from its kubeconfig, as a PEM file.
std::string WriteSandboxCa(const sandbox::testing::SandboxProcess& sandbox) {
  const std::string path = sandbox.dir() + "/ca.pem";
  const auto result =
      sandbox::testing::RunCommand("sed -n 's/^ *certificate-authority-data: //p' " +
                                   sandbox.kubeconfig() + " | base64 -d > " + path);
  if (result.exit_code != 0) throw std::runtime_error("no CA in the kubeconfig: " + result.output);
  return path;
}

}  // namespace

ClusterHarness::ClusterHarness(const std::string& nodes, std::vector<std::string> sandbox_flags,
                               std::vector<std::string> controller_flags,
                               const std::string& backend, bool start_controller) {
  if (backend == "sandbox") {
    std::vector<std::string> flags = {"--nodes", nodes, "--time-scale", "10"};
    flags.insert(flags.end(), sandbox_flags.begin(), sandbox_flags.end());
    sandbox_ = std::make_unique<sandbox::testing::SandboxProcess>(flags);
    dir_ = sandbox_->dir();
  } else {
    real_ = &backends::testing::ClusterFor(backend);
    dir_ = real_->dir() + "/harness-" + std::to_string(++harnesses_made);
    std::filesystem::create_directories(dir_);
    const auto faults = backends::testing::Faults::FromSandboxFlags(sandbox_flags);
    if (faults.any()) proxy_ = std::make_unique<backends::testing::FaultProxy>(*real_, faults);
  }
  const std::string crds = sandbox::testing::SourcePath("crds");
  if (Kubectl("apply -f " + crds).exit_code != 0 ||
      Kubectl("wait --for=condition=Established crd --all --timeout=30s").exit_code != 0)
    throw std::runtime_error("could not install the CRDs");
  if (real_) ResetRealCluster();
  Kubectl("apply -f " + sandbox::testing::SourcePath("examples/queues.yaml"));
  if (real_) StartSimulatedNodes(nodes);
  ResolveGpuMetricsUrl(controller_flags);
  if (start_controller) StartController(ControllerKubeconfig(), std::move(controller_flags));
}

void ClusterHarness::ResolveGpuMetricsUrl(std::vector<std::string>& flags) {
  const auto url = std::find(flags.begin(), flags.end(), kGpuMetricsUrl);
  if (url == flags.end()) return;
  if (sandbox_) {
    *url = "https://127.0.0.1:" + std::to_string(sandbox_->port()) + "/dcgm-exporter/metrics";
    flags.insert(flags.end(), {"--gpu-metrics-ca-file", WriteSandboxCa(*sandbox_)});
    return;
  }
  std::ifstream port_file(dir_ + "/dcgm.port");
  int port = 0;
  port_file >> port;
  *url = "http://127.0.0.1:" + std::to_string(port) + "/metrics";
}

ControllerProcess& ClusterHarness::StartController(const std::string& kubeconfig,
                                                   std::vector<std::string> flags) {
  controller_ = std::make_unique<ControllerProcess>("controller", kubeconfig,
                                                    dir_ + "/controller.log", std::move(flags));
  controller_->Start();
  return *controller_;
}

ControllerProcess& ClusterHarness::StartControllerServingWebhook(std::vector<std::string> flags) {
  const std::string address = "127.0.0.1:" + std::to_string(sandbox::testing::FreeLoopbackPort());
  KubectlOnce(std::string("create namespace ") + kWebhookNamespace);  // There already, or made.
  Apply(WebhookConfigurationYaml("https://" + address + "/mutate-pods"));
  webhook_registered_ = true;
  flags.insert(flags.end(),
               {"--webhook-bind-address", address, "--webhook-host", "127.0.0.1",
                "--webhook-namespace", kWebhookNamespace, "--webhook-configuration",
                kWebhookConfiguration, "--webhook-secret", "gpupool-test-webhook-tls"});
  ResolveGpuMetricsUrl(flags);
  StartController(ControllerKubeconfig(), std::move(flags));
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (!WebhookGates()) {
    if (Clock::now() > deadline)
      throw std::runtime_error("the API server never called the webhook:\n" + ControllerLog());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return *controller_;
}

bool ClusterHarness::WebhookGates() {
  const std::string probe = WriteFile("webhook-probe.yaml", LabelledPodYaml("default", "probe", 1));
  const auto made = KubectlOnce("create --dry-run=server -o json -f " + probe);
  return made.exit_code == 0 && made.output.find("gpupool.dev/admission") != std::string::npos;
}

ClusterHarness::~ClusterHarness() {
  if (webhook_registered_ && real_)
    real_->Kubectl(std::string("delete mutatingwebhookconfiguration ") + kWebhookConfiguration);
  more_controllers_.clear();
  controller_.reset();
  if (!nodes_) return;
  nodes_->Kill(SIGTERM);  // it deletes its nodes as it stops
  if (::testing::Test::HasFailure()) {
    std::cerr << "simulate-nodes log:\n" << ControllerLog("simulate-nodes") << "\n";
  }
}

std::string ClusterHarness::kubeconfig() const {
  return sandbox_ ? sandbox_->kubeconfig() : real_->kubeconfig();
}

std::string ClusterHarness::ControllerKubeconfig() const {
  return proxy_ ? proxy_->kubeconfig() : kubeconfig();
}

std::string ClusterHarness::WriteFile(const std::string& name, const std::string& text) {
  if (sandbox_) return sandbox_->WriteFile(name, text);
  const std::string path = dir_ + "/" + name;
  std::ofstream(path) << text;
  return path;
}

void ClusterHarness::ResetRealCluster() {
  for (const char* command : {
           // First: a webhook no test serves any more would refuse labelled pods,
           // and their owners' updates (a Job's finalizer removal).
           "delete mutatingwebhookconfigurations -l app.kubernetes.io/part-of=gpupool",
           "delete trainingjobs --all -A --wait=false",
           // Other owners' kinds a test installed (their objects go with them).
           "delete -f tests/support/stand_in_crds.yaml --ignore-not-found",
           "delete projects,queues,departments --all --wait=false",
           // Jobs first: their controller would make their pods again.
           "delete jobs.batch --all -A",
           "delete pods --all -A --grace-period=0 --force",
           "delete services -A --field-selector metadata.name!=kubernetes",
           "delete events --all -A",
           "delete nodes --all",
           "delete priorityclasses gpupool-train gpupool-build gpupool-inference "
           "--ignore-not-found",
       }) {
    const auto result = real_->Kubectl(command);
    if (result.exit_code != 0)
      throw std::runtime_error("resetting the cluster: kubectl " + std::string(command) + ": " +
                               result.output);
  }
  // Leader-election Leases of earlier controllers, outside the system's namespaces.
  const auto leases = real_->Kubectl(
      "get leases -A -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name} {end}'");
  std::stringstream names(leases.output);
  for (std::string lease; names >> lease;) {
    if (lease.rfind("kube-", 0) == 0) continue;
    const auto slash = lease.find('/');
    real_->Kubectl("delete lease -n " + lease.substr(0, slash) + " " + lease.substr(slash + 1));
  }
}

void ClusterHarness::StartSimulatedNodes(const std::string& nodes) {
  nodes_ = std::make_unique<GpupoolProcess>(
      "simulate-nodes", kubeconfig(), dir_ + "/simulate-nodes.log",
      std::vector<std::string>{"--nodes", nodes, "--time-scale", "10", "--delete-nodes-on-exit",
                               "--dcgm-port", "0", "--dcgm-port-file", dir_ + "/dcgm.port"});
  nodes_->Start();
  // Ready, and free of the not-ready taint the node lifecycle controller lifts.
  const bool ready = WaitFor(60, [&](const Json&) {
    const Json all = Get("nodes");
    if (all.empty()) return false;
    for (const Json& node : all) {
      if (!node.value("spec", Json::object()).value("taints", Json::array()).empty()) return false;
    }
    return true;
  });
  if (!ready || !nodes_->Running()) {
    throw std::runtime_error("the simulated nodes did not become ready: " +
                             ControllerLog("simulate-nodes"));
  }
}

ControllerProcess& ClusterHarness::AddController(const std::string& name,
                                                 std::vector<std::string> flags) {
  more_controllers_.push_back(std::make_unique<ControllerProcess>(
      "controller", ControllerKubeconfig(), dir_ + "/" + name + ".log", std::move(flags)));
  more_controllers_.back()->Start();
  return *more_controllers_.back();
}

CommandResult ClusterHarness::KubectlOnce(const std::string& arguments) {
  return sandbox_ ? sandbox_->Kubectl(arguments) : real_->Kubectl(arguments);
}

CommandResult ClusterHarness::Kubectl(const std::string& arguments) {
  CommandResult result;
  for (int attempt = 0; attempt < 10; ++attempt) {
    result = KubectlOnce(arguments);
    if (result.exit_code == 0) return result;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return result;
}

void ClusterHarness::Apply(const std::string& yaml) {
  const std::string path = WriteFile("apply-" + std::to_string(applied_++) + ".yaml", yaml);
  const CommandResult result = Kubectl("apply -f " + path);
  if (result.exit_code != 0) throw std::runtime_error("kubectl apply failed: " + result.output);
}

Json ClusterHarness::Get(const std::string& what) {
  const bool one_namespace = what.find(" -n ") != std::string::npos;
  const CommandResult result = Kubectl("get " + what + (one_namespace ? "" : " -A") + " -o json");
  if (result.exit_code != 0) throw std::runtime_error("kubectl get failed: " + result.output);
  return Json::parse(result.output)["items"];
}

bool ClusterHarness::WaitFor(double seconds, const std::function<bool(const Json&)>& done) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<int>(seconds * 1000));
  while (Clock::now() < deadline) {
    if (done(Get("trainingjobs"))) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

namespace {

bool Live(const Json& pod) {
  const std::string phase = pod["status"].value("phase", "");
  return !pod["spec"].value("nodeName", "").empty() && phase != "Succeeded" && phase != "Failed";
}

std::string Annotation(const Json& pod, const std::string& key) {
  return pod["metadata"].value("annotations", Json::object()).value(key, "");
}

}  // namespace

// Physical devices as the device plugin gave them: none to two live pods, and
// the device a live fraction runs on is held by a reservation pod on its node
// and by no other pod.
std::string CheckPhysicalDevices(const Json& pods) {
  std::map<std::string, std::string> holder;  // "node/device" → pod
  for (const Json& pod : pods) {
    if (!Live(pod)) continue;
    const std::string name = pod["metadata"]["namespace"].get<std::string>() + "/" +
                             pod["metadata"]["name"].get<std::string>();
    std::stringstream devices(Annotation(pod, "gpupool.dev/visible-devices"));
    for (std::string device; std::getline(devices, device, ',');) {
      const std::string key = pod["spec"]["nodeName"].get<std::string>() + "/" + device;
      if (holder.count(key))
        return "device " + key + " is given to " + holder[key] + " and " + name;
      holder[key] = name;
    }
  }
  for (const Json& pod : pods) {
    const std::string device = Annotation(pod, "gpupool.dev/gpu-device");
    if (!Live(pod) || device.empty()) continue;
    const std::string key = pod["spec"]["nodeName"].get<std::string>() + "/" + device;
    const std::string name = pod["metadata"]["name"];
    if (!holder.count(key) || holder[key].find("/gpupool-reservation-") == std::string::npos)
      return "fraction " + name + " runs on " + key + ", held by " +
             (holder.count(key) ? holder[key] : "no reservation");
  }
  return "";
}

namespace {

// "ns/job" of the jobs whose pods have all ended, and of those with a live pod.
struct PodsByJob {
  std::set<std::string> ended;
  std::set<std::string> live;
};

PodsByJob JobsByPods(const Json& pods) {
  PodsByJob jobs;
  for (const Json& pod : pods) {
    const std::string job =
        pod["metadata"].value("labels", Json::object()).value("gpupool.dev/job", "");
    if (job.empty()) continue;
    const std::string phase = pod["status"].value("phase", "");
    const std::string key = pod["metadata"]["namespace"].get<std::string>() + "/" + job;
    (phase == "Succeeded" || phase == "Failed" ? jobs.ended : jobs.live).insert(key);
  }
  return jobs;
}

}  // namespace

std::string ClusterHarness::CheckDevices() {
  std::map<std::string, std::string> owner;  // "node/device" → jobs
  std::map<std::string, long> milli;         // "node/device" → their share, 1000 a device
  const Json pods = Get("pods");
  const PodsByJob by_pods = JobsByPods(pods);
  for (const Json& job : Get("trainingjobs")) {
    const Json status = job.value("status", Json::object());
    const std::string phase = status.value("phase", "");
    if (phase != "Admitted" && phase != "Running") continue;
    const std::string name = job["metadata"]["namespace"].get<std::string>() + "/" +
                             job["metadata"]["name"].get<std::string>();
    // A Running job whose pods have all ended holds nothing: the controller writes
    // its end after the cycle's admissions into its devices (docs/operator.md, step 6).
    if (phase == "Running" && by_pods.ended.count(name) && !by_pods.live.count(name)) continue;
    const Json gpus = job["spec"]["gpusPerReplica"];
    const std::string text = gpus.is_string() ? gpus.get<std::string>() : gpus.dump();
    const double per_replica = std::stod(text) / (text.back() == 'm' ? 1000 : 1);
    const long share = per_replica < 1 ? std::lround(per_replica * 1000) : 1000;
    for (const Json& placed : status.value("placement", Json::array())) {
      for (const Json& device : placed["devices"]) {
        const std::string key = placed["node"].get<std::string>() + "/" + device.dump();
        owner[key] += (owner[key].empty() ? "" : " and ") + name;
        milli[key] += share;
        if (milli[key] > 1000) return key + " is given to " + owner[key];
      }
    }
  }
  if (std::string problem = CheckPhysicalDevices(pods); !problem.empty()) return problem;
  std::map<std::string, long> used;
  for (const Json& pod : pods) {
    const std::string phase = pod["status"].value("phase", "");
    const std::string node = pod["spec"].value("nodeName", "");
    if (node.empty() || phase == "Succeeded" || phase == "Failed") continue;
    for (const Json& container : pod["spec"]["containers"]) {
      const Json limits =
          container.value("resources", Json::object()).value("limits", Json::object());
      if (limits.contains("nvidia.com/gpu"))
        used[node] += std::stol(limits["nvidia.com/gpu"].is_string()
                                    ? limits["nvidia.com/gpu"].get<std::string>()
                                    : limits["nvidia.com/gpu"].dump());
    }
  }
  for (const Json& node : Get("nodes")) {
    const std::string name = node["metadata"]["name"];
    const Json gpus = node["status"]["allocatable"].value("nvidia.com/gpu", Json(0));
    const long capacity = gpus.is_string() ? std::stol(gpus.get<std::string>()) : gpus.get<long>();
    if (used[name] > capacity)
      return name + " runs pods asking for " + std::to_string(used[name]) + " of " +
             std::to_string(capacity) + " GPUs";
  }
  return "";
}

std::string ClusterHarness::ControllerLog(const std::string& name) const {
  std::ifstream file(dir_ + "/" + name + ".log");
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string TrainJobYaml(const std::string& ns, const std::string& name, int run_seconds,
                         const std::string& queue, const std::string& extra_spec,
                         const std::string& gpus) {
  return "apiVersion: gpupool.dev/v1alpha1\nkind: TrainingJob\nmetadata: {name: " + name +
         ", namespace: " + ns + "}\nspec:\n  queue: " + queue + "\n  gpusPerReplica: " + gpus +
         "\n" + extra_spec +
         "  template:\n    metadata:\n      annotations: {sandbox.gpupool.dev/run-seconds: \"" +
         std::to_string(run_seconds) +
         "\"}\n    spec:\n      containers: [{name: main, image: trainer}]\n---\n";
}

namespace {

// A pod template's metadata and spec asking gpupool for `gpus` GPUs of `queue`,
// each line indented by `indent`.
std::string TemplateYaml(const std::string& indent, int gpus, const std::string& queue,
                         const std::string& labels, bool gated) {
  return indent + "metadata:\n" + indent + "  labels: {gpupool.dev/queue: " + queue + labels +
         "}\n" + indent + "  annotations: {sandbox.gpupool.dev/run-seconds: \"100000\"}\n" +
         indent + "spec:\n" + indent + "  restartPolicy: Never\n" +
         (gated ? indent + "  schedulingGates: [{name: gpupool.dev/admission}]\n" : "") + indent +
         "  containers: [{name: main, image: trainer, resources: {limits: {nvidia.com/gpu: \"" +
         std::to_string(gpus) + "\"}}}]\n";
}

}  // namespace

std::string GatedPodYaml(const std::string& ns, const std::string& name, int gpus,
                         const std::string& queue, const std::string& labels) {
  std::string pod = TemplateYaml("", gpus, queue, labels, /*gated=*/true);
  const std::string named = "metadata:\n  name: " + name + "\n  namespace: " + ns + "\n";
  pod.replace(0, std::string("metadata:\n").size(), named);
  return "---\napiVersion: v1\nkind: Pod\n" + pod;
}

std::string LabelledPodYaml(const std::string& ns, const std::string& name, int gpus,
                            const std::string& queue, const std::string& labels) {
  std::string pod = GatedPodYaml(ns, name, gpus, queue, labels);
  const std::string gate = "  schedulingGates: [{name: gpupool.dev/admission}]\n";
  pod.erase(pod.find(gate), gate.size());
  return pod;
}

std::string LabelledBatchJobYaml(const std::string& ns, const std::string& name, int gpus,
                                 int parallelism, const std::string& labels) {
  return "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: " + name + ", namespace: " + ns +
         "}\nspec:\n  parallelism: " + std::to_string(parallelism) +
         "\n  completions: " + std::to_string(parallelism) +
         "\n  backoffLimit: 0\n  podFailurePolicy:\n    rules:\n    - action: Ignore\n"
         "      onPodConditions: [{type: DisruptionTarget}]\n  template:\n" +
         TemplateYaml("    ", gpus, "train", labels, /*gated=*/false);
}

std::string PhaseOf(const Json& jobs, const std::string& ns, const std::string& name) {
  for (const Json& job : jobs)
    if (job["metadata"]["namespace"] == ns && job["metadata"]["name"] == name)
      return job.value("status", Json::object()).value("phase", "");
  return "";
}

int CountPhase(const Json& jobs, const std::string& ns, const std::string& phase) {
  int count = 0;
  for (const Json& job : jobs)
    if (job["metadata"]["namespace"] == ns &&
        job.value("status", Json::object()).value("phase", "") == phase)
      ++count;
  return count;
}

}  // namespace gpupool::op::testing
