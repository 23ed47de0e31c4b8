// The chart's RBAC, enforced: manifests/ applied to a sandbox that checks
// service-account requests against RBAC (--authorize-service-accounts), and
// the real `gpupool controller` run with the Deployment's flags under a token
// of the chart's ServiceAccount through story 1 (admissions, pods released,
// a preemption, Events). Any call the chart does not grant is a 403 the
// sandbox counts in its log, and fails the test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "install_files.h"

namespace gpupool::install::testing {
namespace {

using Json = nlohmann::json;
using sandbox::testing::RunCommand;
using sandbox::testing::SandboxProcess;
using sandbox::testing::SourcePath;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kNodes[] = "1x8:pool=train,gpu=A100,rack=r1;2x2:pool=build,gpu=T4";
constexpr char kDenial[] = "sandbox: RBAC denial";

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

// Polls `holds` every half second for at most `seconds`.
bool Eventually(double seconds, const std::function<bool()>& holds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (holds()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return holds();
}

// Whether `pid` is a live process (not gone, not a zombie awaiting its reaper).
bool Running(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z';
}

// The controller container's args of the rendered Deployment, its metrics
// and probes moved to free loopback ports.
std::vector<std::string> DeploymentArgs() {
  const YAML::Node deployment = FindObject(LoadManifests(), "Deployment");
  std::vector<std::string> args;
  for (const auto& arg : deployment["spec"]["template"]["spec"]["containers"][0]["args"])
    args.push_back(arg.as<std::string>());
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--metrics-bind-address" || args[i] == "--health-probe-bind-address" ||
        args[i] == "--webhook-bind-address")
      args[i + 1] = "127.0.0.1:0";
  }
  return args;
}

// A sandbox enforcing RBAC with `manifests` applied, and `gpupool controller`
// running as the chart's ServiceAccount (stopped by its PID at the end).
class ControllerUnderRbac {
 public:
  explicit ControllerUnderRbac(const std::string& manifests,
                               const std::vector<std::string>& args = DeploymentArgs())
      : sandbox_({"--authorize-service-accounts", "--nodes", kNodes, "--time-scale", "10"}) {
    Admin("apply -f " + manifests);
    Admin("wait --for=condition=Established crd --all --timeout=30s");
    const auto account = FindObject(LoadManifests(), "ServiceAccount");
    const std::string token = Trimmed(Admin(
        "create token " + account["metadata"]["name"].as<std::string>() + " -n " + kNamespace));
    std::string kubeconfig = ReadText(sandbox_.kubeconfig());
    const std::string admin = "token: " + sandbox_.token();
    kubeconfig.replace(kubeconfig.find(admin), admin.size(), "token: " + token);
    const std::string path = sandbox_.WriteFile("controller-kubeconfig", kubeconfig);
    // `timeout` bounds the run should the test never stop it.
    std::string command =
        "timeout -s TERM 150 " + std::string(GPUPOOL_BINARY) + " controller --kubeconfig " + path;
    for (const auto& arg : args) command += " '" + arg + "'";
    const auto started = RunCommand(command + " >" + log_path() + " 2>&1 & echo $!");
    pid_ = std::stoi(started.output);
  }
  ~ControllerUnderRbac() { Stop(); }

  // SIGTERM (the leader releases its Lease on the way out), then waits.
  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    if (!Eventually(10, [&] { return !Running(pid_); })) kill(pid_, SIGKILL);
    pid_ = -1;
  }

  // kubectl with the admin token; the output, failing the test when kubectl fails.
  std::string Admin(const std::string& arguments) const {
    const auto result = sandbox_.Kubectl(arguments);
    EXPECT_EQ(result.exit_code, 0) << arguments << ": " << result.output;
    return result.output;
  }
  Json AdminJson(const std::string& arguments) const {
    const auto result = sandbox_.Kubectl(arguments + " -o json");
    return result.exit_code == 0 ? Json::parse(result.output) : Json();
  }
  int JobsIn(const std::string& ns, const std::string& phase) const {
    int count = 0;
    const Json jobs = AdminJson("get trainingjobs -n " + ns);
    for (const auto& job : jobs.value("items", Json::array())) {
      if (job.value("status", Json::object()).value("phase", "") == phase) ++count;
    }
    return count;
  }
  std::string SandboxLog() const { return ReadText(sandbox_.dir() + "/sandbox.log"); }
  std::string ControllerLog() const { return ReadText(log_path()); }
  std::string Logs() const {
    return "sandbox log:\n" + SandboxLog() + "\ncontroller log:\n" + ControllerLog();
  }

 private:
  std::string log_path() const { return sandbox_.dir() + "/controller.log"; }

  SandboxProcess sandbox_;
  int pid_ = -1;
};

std::string Example(const std::string& name) {
  return "apply -f " + SourcePath("examples/" + name);
}

TEST(ControllerUnderRbac, RunsStory1WithNoRequestDenied) {
  ControllerUnderRbac run(SourcePath(kManifestsDir));
  run.Admin(Example("queues.yaml"));
  run.Admin(Example("story1-susan-joe-jemma.yaml"));
  ASSERT_TRUE(Eventually(60, [&] { return run.JobsIn("susan", "Running") == 8; })) << run.Logs();
  run.Admin(Example("story1-joe-submits.yaml"));
  ASSERT_TRUE(Eventually(60, [&] { return run.JobsIn("joe", "Running") == 2; })) << run.Logs();
  // Preemption Events were written (create and patch of events.k8s.io events).
  ASSERT_TRUE(Eventually(20, [&] {
    const Json events = run.AdminJson("get events.v1.events.k8s.io -n susan");
    for (const auto& event : events.value("items", Json::array())) {
      if (event.value("reason", "") == "Preempted") return true;
    }
    return false;
  })) << run.Logs();
  // The Lease the leader holds, in the release namespace.
  const Json lease = run.AdminJson("get lease -n " + std::string(kNamespace));
  EXPECT_EQ(lease.value("items", Json::array()).size(), 1u) << run.Logs();
  // The webhook's certificates, in its Secret and in its configuration's CA bundle.
  const Json secret = run.AdminJson("get secret gpupool-webhook-tls -n " + std::string(kNamespace));
  EXPECT_EQ(secret.value("type", ""), "kubernetes.io/tls") << run.Logs();
  const Json configuration = run.AdminJson("get mutatingwebhookconfiguration gpupool-pods");
  ASSERT_EQ(configuration.value("webhooks", Json::array()).size(), 1u) << configuration.dump();
  EXPECT_EQ(configuration["webhooks"][0]["clientConfig"].value("caBundle", ""),
            secret["data"].value("ca.crt", ""));
  run.Stop();
  const std::string sandbox_log = run.SandboxLog();
  EXPECT_EQ(Count(sandbox_log, kDenial), 0u) << sandbox_log;
  EXPECT_THAT(run.ControllerLog(), Not(HasSubstr("Forbidden")));
  EXPECT_THAT(run.ControllerLog(), Not(HasSubstr("forbidden")));
}

// The test can fail: without patch on trainingjobs/status (in a copy of the
// manifests), the controller's first status write is denied, and counted.
TEST(ControllerUnderRbac, CountsTheDenialOfAVerbTheChartLeftOut) {
  char pattern[] = "/tmp/gpupool-rbac-test-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string manifests = pattern;
  const std::string status_rule =
      "resources: [queues/status, projects/status, departments/status, trainingjobs/status]";
  std::string text = ReadText(SourcePath(kManifestsDir) + "/gpupool.yaml");
  ASSERT_NE(text.find(status_rule), std::string::npos);
  text.replace(text.find(status_rule), status_rule.size(),
               "resources: [queues/status, projects/status, departments/status]");
  std::ofstream(manifests + "/gpupool.yaml") << text;
  std::ofstream(manifests + "/crds.yaml") << ReadText(SourcePath(kManifestsDir) + "/crds.yaml");
  {
    ControllerUnderRbac run(manifests);
    run.Admin(Example("queues.yaml"));
    run.Admin(Example("story1-susan-joe-jemma.yaml"));
    const std::string denied =
        "is forbidden: User \"system:serviceaccount:gpupool-system:gpupool-controller\" cannot "
        "patch resource \"trainingjobs/status\" in API group \"gpupool.dev\" in the namespace "
        "\"susan\"";
    const bool seen =
        Eventually(60, [&] { return run.SandboxLog().find(denied) != std::string::npos; });
    run.Stop();
    EXPECT_TRUE(seen) << run.Logs();
    EXPECT_GT(Count(run.SandboxLog(), kDenial), 0u);
    EXPECT_THAT(run.ControllerLog(), HasSubstr("forbidden")) << run.Logs();
  }
  std::filesystem::remove_all(manifests);
}

// Started without --skip-priority-classes under the chart's RBAC (which grants
// no create, as the chart made the classes), the controller asks once per
// class, is refused, and goes on: no request repeated every cycle.
TEST(ControllerUnderRbac, ADeniedPriorityClassCreateIsNotRetried) {
  std::vector<std::string> args = DeploymentArgs();
  const auto skip = std::find(args.begin(), args.end(), "--skip-priority-classes");
  ASSERT_NE(skip, args.end());
  args.erase(skip);
  ControllerUnderRbac run(SourcePath(kManifestsDir), args);
  run.Admin(Example("queues.yaml"));
  run.Admin(Example("story1-susan-joe-jemma.yaml"));
  ASSERT_TRUE(Eventually(60, [&] { return run.JobsIn("susan", "Running") == 8; })) << run.Logs();
  run.Stop();
  const std::string denied = "cannot create resource \"priorityclasses\"";
  EXPECT_EQ(Count(run.SandboxLog(), denied), 3u) << run.Logs();
  EXPECT_EQ(Count(run.SandboxLog(), kDenial), 3u) << run.Logs();
  EXPECT_EQ(Count(run.ControllerLog(), "not allowed to create PriorityClass"), 3u) << run.Logs();
}

}  // namespace
}  // namespace gpupool::install::testing
