// Story 1 (Susan, Joe and Jemma share eight GPUs) on every backend (the sandbox
// and each real control plane) and a real controller process, scraped every
// second by a real Prometheus; the story is then read back through PromQL.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <thread>

#include "cluster_harness.h"
#include "prometheus_process.h"

namespace gpupool::metrics {
namespace {

using op::testing::ClusterHarness;
using op::testing::CountPhase;
using op::testing::Json;
using op::testing::kStory1Projects;
using op::testing::kStoryNodes;
using op::testing::TrainJobYaml;
using testing::PrometheusProcess;

// The port the controller logged it serves metrics on; 0 if not within 10 s.
int MetricsPort(const ClusterHarness& cluster) {
  const std::regex serving(R"(/metrics on 127\.0\.0\.1:(\d+))");
  for (int i = 0; i < 100; ++i) {
    std::smatch match;
    const std::string log = cluster.ControllerLog();
    if (std::regex_search(log, match, serving)) return std::stoi(match[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return 0;
}

// Polls `promql` until its value satisfies `holds`, for at most `seconds`.
bool Eventually(const PrometheusProcess& prometheus, const std::string& promql,
                const std::function<bool(std::optional<double>)>& holds, double seconds = 15) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (holds(prometheus.Value(promql))) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return false;
}

bool Positive(std::optional<double> value) { return value && *value > 0; }

class PrometheusStoryOnBackend : public ::testing::TestWithParam<std::string> {};

TEST_P(PrometheusStoryOnBackend, Story1ReadThroughPromQL) {
  if (!testing::PrometheusInstalled())
    GTEST_SKIP() << "prometheus is not installed (Debian package prometheus): nothing to scrape "
                    "with";
  ClusterHarness cluster(kStoryNodes, {}, {"--metrics-bind-address", "127.0.0.1:0"}, GetParam());
  const int port = MetricsPort(cluster);
  ASSERT_GT(port, 0) << cluster.ControllerLog();
  PrometheusProcess prometheus("127.0.0.1:" + std::to_string(port));
  ASSERT_TRUE(Eventually(prometheus, "up", [](auto up) { return up && *up == 1; }))
      << prometheus.Log();

  cluster.Apply(kStory1Projects);
  std::string susan_jobs;
  for (int i = 1; i <= 8; ++i)
    susan_jobs += TrainJobYaml("susan", "sweep-" + std::to_string(i), 900);
  cluster.Apply(susan_jobs);
  ASSERT_TRUE(cluster.WaitFor(60, [](const Json& jobs) {
    return CountPhase(jobs, "susan", "Running") == 8;
  })) << cluster.ControllerLog();
  // Joe idle: Susan runs above her guarantee.
  EXPECT_TRUE(
      Eventually(prometheus, R"(gpupool_project_over_quota_gpus{project="susan"})", Positive));
  EXPECT_TRUE(Eventually(prometheus,
                         R"(gpupool_project_allocated_gpus{project="susan"}
                            - gpupool_project_guaranteed_gpus{project="susan"})",
                         Positive));
  EXPECT_EQ(prometheus.Value(R"(gpupool_project_allocated_gpus{project="joe"})"), 0.0);
  const double preempted_before =
      prometheus.Value(R"(sum(gpupool_preemptions_total{project="susan"}))").value_or(0);
  EXPECT_EQ(preempted_before, 0);

  cluster.Apply(TrainJobYaml("joe", "bert-1", 60) + TrainJobYaml("joe", "bert-2", 60));
  ASSERT_TRUE(cluster.WaitFor(60, [](const Json& jobs) {
    return CountPhase(jobs, "joe", "Running") + CountPhase(jobs, "joe", "Succeeded") == 2;
  })) << cluster.ControllerLog();
  EXPECT_TRUE(Eventually(prometheus,
                         R"(sum(gpupool_preemptions_total{project="susan",reason="reclaim"}))",
                         [&](auto value) { return value && *value >= preempted_before + 2; }));
  EXPECT_TRUE(Eventually(prometheus,
                         R"(gpupool_project_allocated_gpus{project="joe"}
                            - gpupool_project_guaranteed_gpus{project="joe"})",
                         [](auto value) { return value && *value >= 0; }));
  EXPECT_TRUE(Eventually(prometheus, R"(sum(gpupool_admissions_total{project="joe"}))",
                         [](auto value) { return value && *value >= 2; }));
  EXPECT_TRUE(Eventually(
      prometheus, R"(histogram_quantile(0.9, sum by (le) (gpupool_queue_wait_seconds_bucket)))",
      [](auto value) { return value && *value >= 0; }));
}

// Secure metrics as the chart installs them, scraped by a real Prometheus with
// the token of a ServiceAccount allowed to get /metrics (the server answers the
// controller's TokenReview and SubjectAccessReview from its RBAC objects).
TEST_P(PrometheusStoryOnBackend, ScrapesSecureMetricsWithAReadersToken) {
  if (!testing::PrometheusInstalled())
    GTEST_SKIP() << "prometheus is not installed (Debian package prometheus): nothing to scrape "
                    "with";
  ClusterHarness cluster(kStoryNodes, {"--authorize-service-accounts"},
                         {"--metrics-bind-address", "127.0.0.1:0", "--metrics-secure"}, GetParam());
  const int port = MetricsPort(cluster);
  ASSERT_GT(port, 0) << cluster.ControllerLog();
  cluster.Apply(
      "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: prometheus, namespace: default}\n"
      "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n"
      "metadata: {name: metrics-reader}\nrules: [{nonResourceURLs: [/metrics], verbs: [get]}]\n"
      "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\n"
      "metadata: {name: prometheus-metrics-reader}\n"
      "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: metrics-reader}\n"
      "subjects: [{kind: ServiceAccount, name: prometheus, namespace: default}]\n");
  const auto token = cluster.Kubectl("create token prometheus -n default");
  ASSERT_EQ(token.exit_code, 0) << token.output;
  PrometheusProcess prometheus("127.0.0.1:" + std::to_string(port),
                               token.output.substr(0, token.output.find_last_not_of("\n ") + 1));
  ASSERT_TRUE(Eventually(prometheus, "up", [](auto up) { return up && *up == 1; }))
      << prometheus.Log() << cluster.ControllerLog();
  cluster.Apply(kStory1Projects);
  EXPECT_TRUE(Eventually(prometheus, R"(gpupool_project_guaranteed_gpus{project="susan"})",
                         [](auto value) { return value && *value > 0; }));
}

INSTANTIATE_TEST_SUITE_P(All, PrometheusStoryOnBackend,
                         ::testing::ValuesIn(backends::testing::Backends()), [](const auto& info) {
                           return backends::testing::BackendTestName(info.param);
                         });

}  // namespace
}  // namespace gpupool::metrics
