// The simulated scheduler and kubelet, observed through kubectl.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <thread>

#include "fidelity_util.h"
#include "sandbox_process.h"

namespace gpupool::sandbox::testing {
namespace {

using ::testing::HasSubstr;

std::string Pod(const std::string& name, const std::string& annotations, const std::string& spec,
                const std::string& gpus = "1") {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  annotations: {" +
         annotations + "}\nspec:\n" + spec +
         "  terminationGracePeriodSeconds: 5\n  containers:\n  - name: main\n    image: busybox\n"
         "    resources: {limits: {nvidia.com/gpu: \"" +
         gpus + "\"}}\n";
}

// Polls a jsonpath until it equals `want` (bounded: 10 s).
std::string WaitFor(const SandboxProcess& sandbox, const std::string& what,
                    const std::string& jsonpath, const std::string& want) {
  std::string got;
  for (int i = 0; i < 100; ++i) {
    got = sandbox.Kubectl("get " + what + " -o jsonpath='" + jsonpath + "'").output;
    if (got == want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return got;
}

class SimulationTest : public ::testing::Test {
 protected:
  SandboxProcess sandbox_{
      {"--nodes", "1x8:pool=train,gpu=A100;2x2:pool=build,gpu=T4", "--time-scale", "20"}};
  void Apply(const std::string& name, const std::string& yaml) {
    auto result = sandbox_.Kubectl("apply -f " + sandbox_.WriteFile(name + ".yaml", yaml));
    ASSERT_EQ(result.exit_code, 0) << result.output;
  }
};

TEST_F(SimulationTest, RunsPodsToCompletionOrFailure) {
  Apply("ok",
        Pod("ok", "sandbox.gpupool.dev/run-seconds: \"20\"", "  nodeSelector: {pool: train}\n"));
  Apply("bad",
        Pod("bad", "sandbox.gpupool.dev/run-seconds: \"20\", sandbox.gpupool.dev/exit-code: \"3\"",
            "  nodeSelector: {pool: build}\n"));
  EXPECT_EQ(WaitFor(sandbox_, "pod ok", "{.status.phase}", "Succeeded"), "Succeeded");
  EXPECT_EQ(WaitFor(sandbox_, "pod bad", "{.status.phase}", "Failed"), "Failed");
  EXPECT_EQ(sandbox_.Kubectl("get pod ok -o jsonpath={.spec.nodeName}").output, "node-0");
  EXPECT_EQ(
      sandbox_
          .Kubectl(
              "get pod bad -o jsonpath={.status.containerStatuses[0].state.terminated.exitCode}")
          .output,
      "3");
}

// The device plugin: each GPU pod of a node gets devices no other live pod holds,
// and says which; a finished pod's devices go to the next pod.
TEST_F(SimulationTest, GivesEachGpuPodDevicesOfItsOwnAndSaysWhich) {
  const std::string train = "  nodeSelector: {pool: train}\n";
  Apply("three", Pod("three", "sandbox.gpupool.dev/run-seconds: \"20\"", train, "3"));
  Apply("four", Pod("four", "", train, "4"));
  Apply("one", Pod("one", "", train, "1"));
  const std::string devices = "{.metadata.annotations.gpupool\\.dev/visible-devices}";
  EXPECT_EQ(WaitFor(sandbox_, "pod one", "{.status.phase}", "Running"), "Running");
  std::set<std::string> given;
  int count = 0;
  for (const char* pod : {"three", "four", "one"}) {
    const std::string list =
        sandbox_.Kubectl("get pod " + std::string(pod) + " -o 'jsonpath=" + devices + "'").output;
    std::stringstream items(list);
    for (std::string device; std::getline(items, device, ',');) {
      // Named by UUID, as NVIDIA's device plugin names them.
      EXPECT_THAT(device, ::testing::MatchesRegex(
                              "GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"));
      given.insert(device);
      ++count;
    }
  }
  EXPECT_EQ(count, 8);
  EXPECT_EQ(given.size(), 8u);  // No device given twice.
  EXPECT_EQ(WaitFor(sandbox_, "pod three", "{.status.phase}", "Succeeded"), "Succeeded");
  Apply("next", Pod("next", "", train, "3"));
  EXPECT_EQ(WaitFor(sandbox_, "pod next", "{.status.phase}", "Running"), "Running");
  const std::string first = sandbox_.Kubectl("get pod three -o 'jsonpath=" + devices + "'").output;
  EXPECT_EQ(sandbox_.Kubectl("get pod next -o 'jsonpath=" + devices + "'").output, first);
}

TEST_F(SimulationTest, HonoursResourcesTaintsAndAffinity) {
  // 3 GPUs fit no build node (2 each): Unschedulable with a reason.
  Apply("big", Pod("big", "", "  nodeSelector: {pool: build}\n", "3"));
  EXPECT_EQ(WaitFor(sandbox_, "pod big", "{.status.conditions[0].reason}", "Unschedulable"),
            "Unschedulable");
  EXPECT_THAT(sandbox_.Kubectl("get pod big -o jsonpath={.status.conditions[0].message}").output,
              HasSubstr("Insufficient nvidia.com/gpu"));
  // Required node affinity picks the T4 nodes; a taint keeps pods off node-1.
  ASSERT_EQ(sandbox_.Kubectl("taint node node-1 dedicated=x:NoSchedule").exit_code, 0);
  const std::string affinity =
      "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
      "        nodeSelectorTerms:\n        - matchExpressions:\n"
      "          - {key: gpu, operator: In, values: [T4]}\n";
  Apply("aff", Pod("aff", "", affinity));
  EXPECT_EQ(WaitFor(sandbox_, "pod aff", "{.spec.nodeName}", "node-2"), "node-2");
  Apply("tol", Pod("tol", "", affinity + "  tolerations: [{key: dedicated, operator: Exists}]\n"));
  EXPECT_EQ(WaitFor(sandbox_, "pod tol", "{.spec.nodeName}", "node-1"), "node-1");
}

// A pod created bound to a node (spec.nodeName: no scheduler checks it) that its
// node selector does not match is rejected by the kubelet, as on a real node.
TEST_F(SimulationTest, TheKubeletRejectsABoundPodItsNodeDoesNotMatch) {
  Apply("misplaced", Pod("misplaced", "", "  nodeName: node-0\n  nodeSelector: {pool: build}\n"));
  EXPECT_EQ(WaitFor(sandbox_, "pod misplaced", "{.status.phase}", "Failed"), "Failed");
  EXPECT_EQ(sandbox_.Kubectl("get pod misplaced -o jsonpath={.status.reason}").output,
            "NodeAffinity");
  EXPECT_THAT(sandbox_.Kubectl("get pod misplaced -o jsonpath={.status.message}").output,
              HasSubstr("Predicate NodeAffinity failed"));
  Apply("placed", Pod("placed", "", "  nodeName: node-1\n  nodeSelector: {pool: build}\n"));
  EXPECT_EQ(WaitFor(sandbox_, "pod placed", "{.status.phase}", "Running"), "Running");
}

TEST_F(SimulationTest, AnUnschedulablePodGetsOneFailedSchedulingEventPerReason) {
  Apply("big", Pod("big", "", "  nodeSelector: {pool: build}\n", "3"));
  const std::string query =
      "get events --field-selector involvedObject.name=big,reason=FailedScheduling "
      "-o jsonpath='{range .items[*]}{.type}/{.message};{end}'";
  std::string events;
  for (int i = 0; i < 50 && events.empty(); ++i) {
    events = sandbox_.Kubectl(query).output;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_THAT(events, HasSubstr("Warning/0/3 nodes are available"));
  EXPECT_THAT(events, HasSubstr("Insufficient nvidia.com/gpu"));
  // A node change makes the scheduler retry; the same reason adds no Event.
  ASSERT_EQ(sandbox_.Kubectl("label node node-1 extra=1").exit_code, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  events = sandbox_.Kubectl(query).output;
  EXPECT_EQ(std::count(events.begin(), events.end(), ';'), 1) << events;
  // A new reason is a new Event.
  ASSERT_EQ(sandbox_.Kubectl("taint node node-1 node-2 dedicated=x:NoSchedule").exit_code, 0);
  for (int i = 0; i < 50 && std::count(events.begin(), events.end(), ';') < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    events = sandbox_.Kubectl(query).output;
  }
  // (Tainting the two nodes one by one may show a reason in between.)
  EXPECT_GE(std::count(events.begin(), events.end(), ';'), 2) << events;
  EXPECT_THAT(events, HasSubstr("untolerated taint"));
}

// The simulated controllers follow every change, however short the watch
// history: a burst of writes that outruns it must not make them start over
// (which would forget the Event already written and write it again).
TEST(SimulationFeedTest, ABurstBeyondTheWatchHistoryLosesNoSimulatorState) {
  SandboxProcess sandbox({"--nodes", "1x2:pool=build", "--watch-history", "4"});
  auto result = sandbox.Kubectl(
      "apply -f " +
      sandbox.WriteFile("big.yaml", Pod("big", "", "  nodeSelector: {pool: build}\n", "3")));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const std::string query =
      "get events --field-selector involvedObject.name=big,reason=FailedScheduling "
      "-o jsonpath='{range .items[*]}{.message};{end}'";
  std::string events;
  for (int i = 0; i < 50 && events.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    events = sandbox.Kubectl(query).output;
  }
  ASSERT_THAT(events, HasSubstr("Insufficient nvidia.com/gpu"));
  auto client = sandbox.Http();
  client->set_keep_alive(true);
  client->set_tcp_nodelay(true);
  for (int burst = 0; burst < 10; ++burst) {
    for (int i = 0; i < 40; ++i) {
      const std::string name = "cm-" + std::to_string(burst) + "-" + std::to_string(i);
      ASSERT_EQ(Send(*client, "POST", "/api/v1/namespaces/default/configmaps", ConfigMapJson(name))
                    .status,
                201);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  events = sandbox.Kubectl(query).output;
  EXPECT_EQ(std::count(events.begin(), events.end(), ';'), 1) << events;
}

TEST_F(SimulationTest, PodsOfAnotherSchedulerStayPending) {
  Apply("other", Pod("other", "", "  schedulerName: my-scheduler\n"));
  Apply("mine", Pod("mine", "", "  nodeSelector: {pool: train}\n"));
  EXPECT_EQ(WaitFor(sandbox_, "pod mine", "{.spec.nodeName}", "node-0"), "node-0");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(sandbox_.Kubectl("get pod other -o jsonpath={.spec.nodeName}").output, "");
  EXPECT_THAT(sandbox_.Kubectl("get pod other -o jsonpath={.status.conditions}").output,
              ::testing::Not(HasSubstr("PodScheduled")));
  EXPECT_EQ(sandbox_.Kubectl("get pod other -o jsonpath={.status.phase}").output, "Pending");
}

TEST_F(SimulationTest, AnUnreadablePodDoesNotStopTheScheduler) {
  const std::string poison =
      "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
      "        nodeSelectorTerms:\n        - matchExpressions:\n"
      "          - {key: gpu, operator: Gt, values: [5]}\n";
  Apply("poison", Pod("poison", "", poison));
  Apply("after", Pod("after", "", "  nodeSelector: {pool: train}\n"));
  EXPECT_EQ(WaitFor(sandbox_, "pod after", "{.spec.nodeName}", "node-0"), "node-0");
  EXPECT_EQ(sandbox_.Kubectl("get pod poison -o jsonpath={.spec.nodeName}").output, "");
}

TEST_F(SimulationTest, GatedPodsWaitAndNotReadyNodesTakeNoPods) {
  Apply("gated", Pod("gated", "", "  schedulingGates: [{name: gpupool.dev/admission}]\n"));
  EXPECT_EQ(WaitFor(sandbox_, "pod gated", "{.status.conditions[0].reason}", "SchedulingGated"),
            "SchedulingGated");
  ASSERT_EQ(sandbox_.Kubectl("annotate node node-0 sandbox.gpupool.dev/not-ready=true").exit_code,
            0);
  EXPECT_EQ(WaitFor(sandbox_, "node node-0", "{.status.conditions[0].status}", "False"), "False");
  auto result = sandbox_.Kubectl(
      R"(patch pod gated --type=json -p '[{"op":"add","path":"/spec/nodeSelector","value":{"pool":"train"}},{"op":"remove","path":"/spec/schedulingGates"}]')");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(WaitFor(sandbox_, "pod gated", "{.status.conditions[0].reason}", "Unschedulable"),
            "Unschedulable");
  ASSERT_EQ(sandbox_.Kubectl("annotate node node-0 sandbox.gpupool.dev/not-ready-").exit_code, 0);
  // The pod is retried when the cluster changes.
  EXPECT_EQ(WaitFor(sandbox_, "pod gated", "{.status.phase}", "Running"), "Running");
}

TEST_F(SimulationTest, GracefulDeletionAndEviction) {
  // A container that needs 60 s to stop keeps its pod Terminating for the
  // grace period (5 s, 0.25 s of real time at --time-scale 20) when deleted
  // with --grace-period 60: 3 s of real time.
  Apply("a", Pod("a", "sandbox.gpupool.dev/stop-seconds: \"60\"", ""));
  EXPECT_EQ(WaitFor(sandbox_, "pod a", "{.status.phase}", "Running"), "Running");
  auto result = sandbox_.Kubectl("delete pod a --wait=false --grace-period=60");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(sandbox_.Kubectl("get pod a -o jsonpath={.metadata.deletionGracePeriodSeconds}").output,
            "60");
  EXPECT_THAT(sandbox_.Kubectl("get pod a").output, HasSubstr("Terminating"));
  result = sandbox_.Kubectl("wait --for=delete pod/a --timeout=10s");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  Apply("b", Pod("b", "", ""));
  EXPECT_EQ(WaitFor(sandbox_, "pod b", "{.status.phase}", "Running"), "Running");
  auto client = sandbox_.Http();
  auto response =
      client->Post("/api/v1/namespaces/default/pods/b/eviction",
                   R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"b"}})",
                   "application/json");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 201) << response->body;
  result = sandbox_.Kubectl("wait --for=delete pod/b --timeout=10s");
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

}  // namespace
}  // namespace gpupool::sandbox::testing
