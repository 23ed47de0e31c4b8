// Idle Build sessions end to end, on every backend: the simulated DCGM exporter
// (the sandbox's, or `gpupool simulate-nodes`'s on a real control plane), a
// real controller scraping it, the queue's idle policy applied.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <regex>
#include <thread>

#include "cluster_harness.h"

namespace gpupool::op::testing {
namespace {

constexpr char kAnaWithTwoBuildGpus[] = R"(
apiVersion: v1
kind: Namespace
metadata: {name: ana}
---
apiVersion: gpupool.dev/v1alpha1
kind: Project
metadata: {name: ana}
spec: {namespaces: [ana], quotas: [{queue: build, gpu: 2}]}
)";

std::string BuildQueueWithIdlePolicy(int for_seconds) {
  return "apiVersion: gpupool.dev/v1alpha1\nkind: Queue\nmetadata: {name: build}\n"
         "spec:\n  sharing: Fixed\n  nodeSelector: {pool: build}\n"
         "  idle: {utilizationBelowPercent: 10, forSeconds: " +
         std::to_string(for_seconds) + ", action: Preempt}\n";
}

// A one-GPU notebook whose simulated GPU runs at `percent`.
std::string Notebook(const std::string& name, int percent) {
  return "apiVersion: gpupool.dev/v1alpha1\nkind: TrainingJob\nmetadata: {name: " + name +
         ", namespace: ana}\nspec:\n  queue: build\n  workloadClass: Build\n"
         "  gpusPerReplica: 1\n  template:\n    metadata:\n      annotations:\n"
         "        sandbox.gpupool.dev/run-seconds: \"100000\"\n"
         "        sandbox.gpupool.dev/gpu-utilization: \"" +
         std::to_string(percent) +
         "\"\n    spec:\n      containers: [{name: nb, image: jl}]\n---\n";
}

Json JobNamed(const Json& jobs, const std::string& name) {
  for (const Json& job : jobs)
    if (job["metadata"]["name"] == name) return job;
  return nullptr;
}

std::string ConditionReason(const Json& job, const std::string& type) {
  for (const Json& condition : job["status"].value("conditions", Json::array()))
    if (condition["type"] == type) return condition.value("reason", "");
  return "";
}

class IdleSessionsOnBackend : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { SKIP_WITHOUT_BACKEND(GetParam()); }
};

TEST_P(IdleSessionsOnBackend, AnIdleSessionIsReleasedABusyOneKeptAndTheQuotaServesTheNext) {
  ClusterHarness cluster(
      kStoryNodes, {}, {"--gpu-metrics-url", kGpuMetricsUrl, "--gpu-metrics-interval-seconds", "1"},
      GetParam());
  cluster.Apply(BuildQueueWithIdlePolicy(3));
  cluster.Apply(kAnaWithTwoBuildGpus);
  cluster.Apply(Notebook("idle", 2) + Notebook("busy", 80));
  ASSERT_TRUE(cluster.WaitFor(20, [](const Json& jobs) {
    return CountPhase(jobs, "ana", "Running") == 2;
  })) << cluster.ControllerLog();
  // Ana's quota is full: a third notebook waits.
  cluster.Apply(Notebook("next", 50));
  ASSERT_TRUE(cluster.WaitFor(30, [](const Json& jobs) {
    return PhaseOf(jobs, "ana", "idle") == "Failed" && PhaseOf(jobs, "ana", "next") == "Running";
  })) << cluster.ControllerLog();
  const Json jobs = cluster.Get("trainingjobs");
  const Json idle = JobNamed(jobs, "idle");
  EXPECT_EQ(ConditionReason(idle, "Finished"), "IdleTimeout") << idle["status"].dump();
  EXPECT_EQ(ConditionReason(idle, "Idle"), "IdleTimeout");
  const Json busy = JobNamed(jobs, "busy");
  EXPECT_EQ(PhaseOf(jobs, "ana", "busy"), "Running");
  EXPECT_EQ(ConditionReason(busy, "Idle"), "Busy");
  EXPECT_GE(busy["status"].value("gpuUtilizationPercent", 0), 75) << busy["status"].dump();
  const auto events = cluster.Kubectl("get events -n ana -o json");
  EXPECT_NE(events.output.find("IdleTimeout"), std::string::npos);
  EXPECT_EQ(cluster.CheckDevices(), "");
}

int ReadyzPort(const std::string& log) {
  std::smatch match;
  static const std::regex serving("/readyz on 127\\.0\\.0\\.1:([0-9]+)");
  return std::regex_search(log, match, serving) ? std::stoi(match[1]) : 0;
}

TEST_P(IdleSessionsOnBackend, ABrokenExporterLeavesEveryJobAloneAndReadinessSaysSo) {
  ClusterHarness cluster(
      kStoryNodes, {},
      {"--gpu-metrics-url", "http://127.0.0.1:1/metrics", "--gpu-metrics-interval-seconds", "1",
       "--gpu-metrics-timeout-seconds", "1"},
      GetParam());
  cluster.Apply(BuildQueueWithIdlePolicy(1));
  cluster.Apply(kAnaWithTwoBuildGpus);
  cluster.Apply(Notebook("quiet", 0));
  ASSERT_TRUE(cluster.WaitFor(20, [](const Json& jobs) {
    return PhaseOf(jobs, "ana", "quiet") == "Running";
  })) << cluster.ControllerLog();
  std::this_thread::sleep_for(std::chrono::seconds(4));
  const Json quiet = JobNamed(cluster.Get("trainingjobs"), "quiet");
  EXPECT_EQ(quiet["status"]["phase"], "Running");
  EXPECT_EQ(ConditionReason(quiet, "Idle"), "MetricsUnavailable") << quiet["status"].dump();
  const std::string log = cluster.ControllerLog();
  EXPECT_NE(log.find("gpu utilization unavailable: GET http://127.0.0.1:1/metrics"),
            std::string::npos)
      << log;
  httplib::Client client("127.0.0.1", ReadyzPort(log));
  const auto ready = client.Get("/readyz");
  ASSERT_TRUE(ready) << log;
  EXPECT_EQ(ready->status, 200);  // Scheduling goes on: the replica stays ready.
  EXPECT_NE(ready->body.find("gpu utilization unavailable"), std::string::npos) << ready->body;
}

INSTANTIATE_TEST_SUITE_P(All, IdleSessionsOnBackend,
                         ::testing::ValuesIn(backends::testing::Backends()), [](const auto& info) {
                           return backends::testing::BackendTestName(info.param);
                         });

}  // namespace
}  // namespace gpupool::op::testing
