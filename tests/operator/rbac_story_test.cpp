// Story 1 with the controller on the chart's ServiceAccount, under the real
// kube-apiserver's RBAC: manifests/ applied (its Deployment scaled to none),
// `gpupool controller` run locally with the Deployment's flags and a token of
// the ServiceAccount. Every call the chart does not grant is a 403 the
// controller logs, and fails the test. (The sandbox's own RBAC run is
// tests/install/controller_rbac_test.cpp.)
#include <gtest/gtest.h>
#include <httplib.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cluster_harness.h"
#include "gpupool/json/yaml.h"
#include "loopback_port.h"

namespace gpupool::op::testing {
namespace {

constexpr char kNamespace[] = "gpupool-system";

// The rendered Deployment's controller args, its listeners on free loopback
// ports; the webhook's on `webhook_port`, its certificate for 127.0.0.1.
std::vector<std::string> DeploymentArgs(int webhook_port) {
  for (const Json& object :
       json::LoadYamlFile(sandbox::testing::SourcePath("manifests/gpupool.yaml"))) {
    if (object.value("kind", "") != "Deployment") continue;
    std::vector<std::string> args =
        object["spec"]["template"]["spec"]["containers"][0]["args"].get<std::vector<std::string>>();
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == "--metrics-bind-address" || args[i] == "--health-probe-bind-address")
        args[i + 1] = "127.0.0.1:0";
      if (args[i] == "--webhook-bind-address")
        args[i + 1] = "127.0.0.1:" + std::to_string(webhook_port);
      if (args[i] == "--webhook-host") args[i + 1] = "127.0.0.1";
    }
    return args;
  }
  return {};
}

// `kubeconfig` with its user's token replaced by `token`, written to `path`.
std::string WithToken(const std::string& kubeconfig, const std::string& token,
                      const std::string& path) {
  std::ifstream in(kubeconfig);
  std::stringstream out;
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find("token:");
    out << (at == std::string::npos ? line : line.substr(0, at) + "token: " + token) << "\n";
  }
  std::ofstream(path) << out.str();
  return path;
}

class RbacStoryOnBackend : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_BACKEND(GetParam());
    if (GetParam() == "sandbox") {
      GTEST_SKIP() << "the sandbox's RBAC run is tests/install/controller_rbac_test.cpp";
    }
  }
};

// Applies `manifests` (the Deployment scaled to none) and starts the controller
// with the Deployment's flags and a token of the chart's ServiceAccount. The
// API server calls its webhook on loopback: no Service reaches a local process.
void StartControllerUnderChartRbac(ClusterHarness& cluster, const std::string& manifests) {
  ASSERT_EQ(cluster.Kubectl("apply -f " + manifests).exit_code, 0);
  const int webhook_port = sandbox::testing::FreeLoopbackPort();
  const std::string url = "https://127.0.0.1:" + std::to_string(webhook_port) + "/mutate-pods";
  const auto pointed = cluster.Kubectl(
      "patch mutatingwebhookconfiguration gpupool-pods --type json -p "
      "'[{\"op\":\"replace\",\"path\":\"/webhooks/0/clientConfig\",\"value\":{\"url\":\"" +
      url + "\"}}]'");
  ASSERT_EQ(pointed.exit_code, 0) << pointed.output;
  // The sandbox runs no Deployment controller: its Deployment starts no pod.
  if (cluster.real()) {
    const std::string scale =
        "scale deployment gpupool-controller --replicas=0 -n " + std::string(kNamespace);
    ASSERT_EQ(cluster.Kubectl(scale).exit_code, 0);
  }
  const auto token = cluster.Kubectl("create token gpupool-controller --duration 1h -n " +
                                     std::string(kNamespace));
  ASSERT_EQ(token.exit_code, 0) << token.output;
  std::string bearer = token.output;
  while (!bearer.empty() && (bearer.back() == '\n' || bearer.back() == ' ')) bearer.pop_back();
  const std::string kubeconfig =
      WithToken(cluster.kubeconfig(), bearer, cluster.WriteFile("controller-kubeconfig", ""));
  cluster.StartController(kubeconfig, DeploymentArgs(webhook_port));
}

TEST_P(RbacStoryOnBackend, Story1RunsOnTheChartsServiceAccountWithNoRequestDenied) {
  ClusterHarness cluster(kStoryNodes, {}, {}, GetParam(), /*start_controller=*/false);
  StartControllerUnderChartRbac(cluster, sandbox::testing::SourcePath("manifests"));
  cluster.Apply(kStory1Projects);
  std::string susan;
  for (int i = 1; i <= 8; ++i) susan += TrainJobYaml("susan", "sweep-" + std::to_string(i), 900);
  cluster.Apply(susan);
  ASSERT_TRUE(cluster.WaitFor(30, [](const Json& jobs) {
    return CountPhase(jobs, "susan", "Running") == 8;
  })) << cluster.ControllerLog();
  cluster.Apply(TrainJobYaml("joe", "bert-1", 600) + TrainJobYaml("joe", "bert-2", 600));
  ASSERT_TRUE(cluster.WaitFor(30, [](const Json& jobs) {
    return CountPhase(jobs, "joe", "Running") == 2;
  })) << cluster.ControllerLog();
  // A pod of Jemma's own asks too, by its label alone (docs/workloads.md): the
  // webhook gates it, the controller releases it and writes its condition.
  cluster.Apply(LabelledPodYaml("jemma", "notebook", 1));
  ASSERT_TRUE(cluster.WaitFor(30,
                              [&](const Json&) {
                                const std::string pods = cluster.Get("pods -n jemma").dump();
                                return pods.find("\"Running\"") != std::string::npos &&
                                       pods.find("\"reason\":\"Admitted\"") != std::string::npos;
                              }))
      << cluster.Kubectl("get pods -A -o yaml").output << cluster.ControllerLog();
  const auto events = cluster.Kubectl("get events.events.k8s.io -n susan");
  EXPECT_NE(events.output.find("Preempted"), std::string::npos) << events.output;
  const auto lease = cluster.Kubectl("get lease gpupool-controller -n " + std::string(kNamespace));
  EXPECT_EQ(lease.exit_code, 0) << lease.output;
  cluster.controller().Kill(SIGTERM);
  const std::string log = cluster.ControllerLog();
  EXPECT_EQ(log.find("orbidden"), std::string::npos) << log;
  EXPECT_EQ(log.find("HTTP 403"), std::string::npos) << log;  // not a timestamp's .403
}

// The test above can fail: without patch on trainingjobs/status (in a copy of
// the manifests), the real server denies the controller's status writes.
TEST_P(RbacStoryOnBackend, AVerbTheChartLeftOutIsDenied) {
  ClusterHarness cluster(kStoryNodes, {}, {}, GetParam(), /*start_controller=*/false);
  std::ifstream in(sandbox::testing::SourcePath("manifests/gpupool.yaml"));
  std::stringstream text;
  text << in.rdbuf();
  std::string manifest = text.str();
  const std::string status_rule =
      "resources: [queues/status, projects/status, departments/status, trainingjobs/status]";
  ASSERT_NE(manifest.find(status_rule), std::string::npos);
  manifest.replace(manifest.find(status_rule), status_rule.size(),
                   "resources: [queues/status, projects/status, departments/status]");
  StartControllerUnderChartRbac(cluster, cluster.WriteFile("gpupool.yaml", manifest));
  cluster.Apply(kStory1Projects + std::string("---\n") + TrainJobYaml("susan", "denied", 900));
  const bool denied = cluster.WaitFor(30, [&](const Json&) {
    return cluster.ControllerLog().find("cannot patch resource \"trainingjobs/status\"") !=
           std::string::npos;
  });
  EXPECT_TRUE(denied) << cluster.ControllerLog();
}

// The port of the controller's /metrics, from its log line "serving /metrics on
// 127.0.0.1:PORT over HTTPS"; 0 until it is there.
int SecureMetricsPort(const std::string& log) {
  const std::string line = "serving /metrics on 127.0.0.1:";
  const auto at = log.find(line);
  if (at == std::string::npos || log.find(" over HTTPS", at) == std::string::npos) return 0;
  return std::atoi(log.c_str() + at + line.size());
}

// A scrape as the chart's ServiceMonitor makes it: HTTPS without verifying the
// generated certificate, the scraper's ServiceAccount token as bearer.
std::pair<int, std::string> Scrape(int port, const std::string& token) {
  httplib::SSLClient client("127.0.0.1", port);
  client.enable_server_certificate_verification(false);
  client.set_connection_timeout(3);
  client.set_read_timeout(5);
  httplib::Headers headers;
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  const auto result = client.Get("/metrics", headers);
  if (!result) return {0, "no answer: " + httplib::to_string(result.error())};
  return {result->status, result->body};
}

std::string Token(ClusterHarness& cluster, const std::string& account, const std::string& ns) {
  const auto token = cluster.Kubectl("create token " + account + " -n " + ns);
  EXPECT_EQ(token.exit_code, 0) << token.output;
  return token.output.substr(0, token.output.find_last_not_of("\n ") + 1);
}

class SecureMetricsOnBackend : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { SKIP_WITHOUT_BACKEND(GetParam()); }
};

// The chart's defaults: /metrics over HTTPS for the tokens of accounts bound
// to its metrics-reader ClusterRole; the API server (TokenReview,
// SubjectAccessReview) decides, under the chart's own RBAC for the controller.
TEST_P(SecureMetricsOnBackend, OnlyTokensOfTheMetricsReaderRoleReadMetrics) {
  ClusterHarness cluster(kStoryNodes, {"--authorize-service-accounts"}, {}, GetParam(),
                         /*start_controller=*/false);
  StartControllerUnderChartRbac(cluster, sandbox::testing::SourcePath("manifests"));
  int port = 0;
  ASSERT_TRUE(cluster.WaitFor(20, [&](const Json&) {
    return (port = SecureMetricsPort(cluster.ControllerLog())) > 0;
  })) << cluster.ControllerLog();
  cluster.Apply(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: monitoring}\n---\n"
      "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: prometheus, namespace: monitoring}\n"
      "---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: nosy, namespace: monitoring}\n"
      "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\n"
      "metadata: {name: gpupool-metrics-prometheus}\n"
      "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, "
      "name: gpupool-controller-metrics-reader}\n"
      "subjects: [{kind: ServiceAccount, name: prometheus, namespace: monitoring}]\n");
  const std::string reader = Token(cluster, "prometheus", "monitoring");
  const std::string nosy = Token(cluster, "nosy", "monitoring");

  const auto anonymous = Scrape(port, "");
  EXPECT_EQ(anonymous.first, 401) << anonymous.second;
  EXPECT_EQ(Scrape(port, "not-a-token").first, 401);
  const auto denied = Scrape(port, nosy);
  EXPECT_EQ(denied.first, 403) << denied.second;
  EXPECT_NE(denied.second.find("system:serviceaccount:monitoring:nosy"), std::string::npos)
      << denied.second;
  // The binding reaches the server's authorizer within moments; a refusal is kept 10 s.
  std::pair<int, std::string> allowed;
  cluster.WaitFor(25, [&](const Json&) { return (allowed = Scrape(port, reader)).first == 200; });
  EXPECT_EQ(allowed.first, 200) << allowed.second << "\n" << cluster.ControllerLog();
  EXPECT_NE(allowed.second.find("gpupool_"), std::string::npos) << allowed.second;
  cluster.controller().Kill(SIGTERM);
  const std::string log = cluster.ControllerLog();
  EXPECT_EQ(log.find("reviewing a /metrics token failed"), std::string::npos) << log;
  EXPECT_EQ(log.find("orbidden"), std::string::npos) << log;
  cluster.Kubectl("delete clusterrolebinding gpupool-metrics-prometheus --wait=false");
  cluster.Kubectl("delete namespace monitoring --wait=false");
}

class ResearcherRbacOnBackend : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { SKIP_WITHOUT_BACKEND(GetParam()); }
};

// A researcher with the chart's user roles: gpupool-edit in her project's
// namespace and gpupool-researcher cluster-wide. The CLI runs her jobs there,
// and the API server refuses her anywhere else.
TEST_P(ResearcherRbacOnBackend, TheChartsUserRolesLetAResearcherRunJobsInHerNamespaceOnly) {
  ClusterHarness cluster(kStoryNodes, {"--authorize-service-accounts"}, {}, GetParam(),
                         /*start_controller=*/false);
  StartControllerUnderChartRbac(cluster, sandbox::testing::SourcePath("manifests"));
  cluster.Apply(kStory1Projects);
  cluster.Apply(
      "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: researcher, namespace: susan}\n"
      "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\n"
      "metadata: {name: researcher-edit, namespace: susan}\n"
      "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gpupool-edit}\n"
      "subjects: [{kind: ServiceAccount, name: researcher, namespace: susan}]\n"
      "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\n"
      "metadata: {name: susan-researcher}\n"
      "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, "
      "name: gpupool-researcher}\n"
      "subjects: [{kind: ServiceAccount, name: researcher, namespace: susan}]\n");
  const std::string kubeconfig =
      WithToken(cluster.kubeconfig(), Token(cluster, "researcher", "susan"),
                cluster.WriteFile("researcher-kubeconfig", ""));
  const auto gpupool = [&](const std::string& arguments) {
    return sandbox::testing::RunCommand(std::string(GPUPOOL_BINARY) + " " + arguments +
                                        " --kubeconfig " + kubeconfig);
  };
  // The bindings reach the server's authorizer within moments.
  sandbox::testing::CommandResult projects;
  cluster.WaitFor(25, [&](const Json&) { return (projects = gpupool("projects")).exit_code == 0; });
  EXPECT_EQ(projects.exit_code, 0) << projects.output;
  EXPECT_NE(projects.output.find("no UTILIZATION"), std::string::npos) << projects.output;
  const auto submitted =
      gpupool("submit mine --project susan --gpus 1 --image busybox --wait --timeout 60");
  EXPECT_EQ(submitted.exit_code, 0) << submitted.output << cluster.ControllerLog();
  EXPECT_NE(submitted.output.find("mine: Running"), std::string::npos) << submitted.output;
  EXPECT_EQ(gpupool("list -n susan").exit_code, 0);

  const auto elsewhere = gpupool("submit theirs --project joe --gpus 1 --image busybox");
  EXPECT_EQ(elsewhere.exit_code, 1) << elsewhere.output;
  EXPECT_NE(elsewhere.output.find("forbidden"), std::string::npos) << elsewhere.output;
  const auto look = gpupool("list -n joe");
  EXPECT_EQ(look.exit_code, 1) << look.output;
  EXPECT_NE(look.output.find("forbidden"), std::string::npos) << look.output;
  for (const Json& job : cluster.Get("trainingjobs"))
    EXPECT_EQ(job["metadata"]["namespace"], "susan") << job.dump();
}

INSTANTIATE_TEST_SUITE_P(All, RbacStoryOnBackend,
                         ::testing::ValuesIn(backends::testing::Backends()), [](const auto& info) {
                           return backends::testing::BackendTestName(info.param);
                         });
INSTANTIATE_TEST_SUITE_P(All, SecureMetricsOnBackend,
                         ::testing::ValuesIn(backends::testing::Backends()), [](const auto& info) {
                           return backends::testing::BackendTestName(info.param);
                         });

INSTANTIATE_TEST_SUITE_P(All, ResearcherRbacOnBackend,
                         ::testing::ValuesIn(backends::testing::Backends()), [](const auto& info) {
                           return backends::testing::BackendTestName(info.param);
                         });

}  // namespace
}  // namespace gpupool::op::testing
