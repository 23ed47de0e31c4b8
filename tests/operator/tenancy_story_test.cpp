// A hostile tenant against a real controller, on every backend: a Project made
// later that claims Susan's namespace, a Queue made later over the train pool,
// and a pod of its own that wears a gpupool job's label. Susan's jobs stay
// hers, the later Project and Queue are refused saying why, and the forged
// pod's GPUs count as used: no job is admitted onto them.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "cluster_harness.h"

namespace gpupool::op::testing {
namespace {

class TenancyOnBackend : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { SKIP_WITHOUT_BACKEND(GetParam()); }
};

constexpr char kThief[] = R"(
apiVersion: gpupool.dev/v1alpha1
kind: Project
metadata: {name: aaa-thief}
spec: {namespaces: [susan], quotas: [{queue: train, gpu: 2}]}
---
apiVersion: gpupool.dev/v1alpha1
kind: Queue
metadata: {name: aaa-shadow}
spec: {nodeSelector: {gpu: A100}}
---
apiVersion: v1
kind: Pod
metadata:
  name: cuda-test
  namespace: jemma
  labels: {gpupool.dev/job: sweep-1, gpupool.dev/project: jemma, gpupool.dev/replica: "0"}
  annotations: {sandbox.gpupool.dev/run-seconds: "100000"}
spec:
  containers:
  - name: main
    image: cuda
    resources: {limits: {nvidia.com/gpu: "4"}}
)";

std::string ReadyReason(ClusterHarness& cluster, const std::string& what) {
  const auto result = cluster.Kubectl("get " + what + " -o json");
  const Json object = Json::parse(result.output, nullptr, false);
  if (!object.is_object()) return result.output;
  for (const Json& condition :
       object.value("status", Json::object()).value("conditions", Json::array()))
    if (condition.value("type", "") == "Ready") return condition.value("reason", "");
  return "";
}

TEST_P(TenancyOnBackend, ALaterProjectQueueAndAForgedPodTakeNothing) {
  ClusterHarness cluster(kStoryNodes, {}, {}, GetParam());
  cluster.Apply(kStory1Projects);
  // Creation times have a second's resolution: the thief comes a second later.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  cluster.Apply(kThief);
  ASSERT_TRUE(cluster.WaitFor(30, [&](const Json&) {
    return cluster.Get("pods -n jemma").dump().find("\"Running\"") != std::string::npos;
  })) << cluster.Kubectl("get pods -A -o wide").output;

  std::string susan;
  for (int i = 1; i <= 8; ++i) susan += TrainJobYaml("susan", "sweep-" + std::to_string(i), 900);
  cluster.Apply(susan);
  // 8 GPUs, 4 held by the forged pod: 4 of Susan's jobs run, 4 wait in the
  // queue (none admitted onto the forged pod's devices, stuck gated).
  ASSERT_TRUE(cluster.WaitFor(30,
                              [](const Json& jobs) {
                                return CountPhase(jobs, "susan", "Running") == 4 &&
                                       CountPhase(jobs, "susan", "Queued") == 4;
                              }))
      << cluster.Kubectl("get trainingjobs -A").output << cluster.ControllerLog();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const Json jobs = cluster.Get("trainingjobs -n susan");
  EXPECT_EQ(CountPhase(jobs, "susan", "Running"), 4);
  EXPECT_EQ(CountPhase(jobs, "susan", "Admitted"), 0);
  for (const Json& job : jobs)
    EXPECT_EQ(job["status"].value("project", ""), "susan") << job["metadata"]["name"];

  EXPECT_EQ(ReadyReason(cluster, "project aaa-thief"), "NamespaceConflict");
  EXPECT_EQ(ReadyReason(cluster, "project susan"), "Valid");
  EXPECT_EQ(ReadyReason(cluster, "queue aaa-shadow"), "NodesOverlap");
  EXPECT_EQ(ReadyReason(cluster, "queue train"), "Valid");
  EXPECT_EQ(cluster.CheckDevices(), "");
}

INSTANTIATE_TEST_SUITE_P(All, TenancyOnBackend, ::testing::ValuesIn(backends::testing::Backends()),
                         [](const auto& info) {
                           return backends::testing::BackendTestName(info.param);
                         });

}  // namespace
}  // namespace gpupool::op::testing
