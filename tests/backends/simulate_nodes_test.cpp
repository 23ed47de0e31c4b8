// `gpupool simulate-nodes` on a real control plane: Nodes the real node
// lifecycle controller keeps Ready, pods the real kube-scheduler binds run with
// devices of their own named by UUID, a pod whose devices are taken is refused
// as a kubelet refuses it, run times end pods, graceful deletions are
// confirmed, and the DCGM exporter reports the devices. (The sandbox runs the
// same kubelet in-process: tests/sandbox/simulation_test.cpp.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "test_cluster.h"

namespace gpupool::backends::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kSimulatedNamespace[] = "simulated";

// A pod of `gpus` GPUs; bound by `nodeName` when `node` is set, else scheduled.
std::string Pod(const std::string& name, int gpus, const std::string& node = "",
                const std::string& annotations = "{}") {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: " + kSimulatedNamespace + ", annotations: " + annotations + "}\nspec:\n" +
         (node.empty() ? "" : "  nodeName: " + node + "\n") +
         "  terminationGracePeriodSeconds: 30\n"
         "  containers: [{name: main, image: trainer, resources: {limits: {nvidia.com/gpu: " +
         std::to_string(gpus) + "}}}]\n";
}

class SimulatedNodesOnBackend : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_BACKEND(GetParam());
    if (GetParam() == "sandbox") GTEST_SKIP() << "the sandbox simulates its nodes in-process";
    cluster_ = &ClusterFor(GetParam());
    const std::string dir = cluster_->dir();
    const auto started = RunInRepository(
        std::string(GPUPOOL_BINARY) + " simulate-nodes --kubeconfig " + cluster_->kubeconfig() +
        " --nodes 1x8:pool=sim,gpu=A100 --time-scale 10 --delete-nodes-on-exit --dcgm-port 0" +
        " --dcgm-port-file " + dir + "/dcgm.port > " + dir + "/simulate-nodes.log 2>&1 & echo $!");
    pid_ = std::stoi(started.output);
    cluster_->Kubectl(std::string("create namespace ") + kSimulatedNamespace);
  }
  void TearDown() override {
    if (!cluster_) return;
    cluster_->Kubectl(std::string("delete namespace ") + kSimulatedNamespace + " --wait=false");
    if (pid_ > 0) kill(pid_, SIGTERM);
    for (int i = 0; i < 100 && pid_ > 0 && kill(pid_, 0) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

  // `kubectl get` of a jsonpath, polled until it equals `want` or 30 s pass.
  std::string WaitFor(const std::string& what, const std::string& path, const std::string& want) {
    std::string got;
    for (int i = 0; i < 150; ++i) {
      got = cluster_
                ->Kubectl("get " + what + " -n " + kSimulatedNamespace + " -o 'jsonpath=" + path +
                          "'")
                .output;
      if (got == want) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return got;
  }
  void Apply(const std::string& yaml) {
    const std::string path = cluster_->dir() + "/pod.yaml";
    std::ofstream(path) << yaml;
    const auto result = cluster_->Kubectl("apply -f " + path);
    ASSERT_EQ(result.exit_code, 0) << result.output;
  }

  TestCluster* cluster_ = nullptr;
  int pid_ = -1;
};

TEST_P(SimulatedNodesOnBackend, RunPodsWithDevicesOfTheirOwnAndRefuseWhatIsTaken) {
  // Ready, and the real node lifecycle controller lifted the not-ready taint.
  EXPECT_EQ(WaitFor("node node-0", "{.spec.taints}", ""), "");
  EXPECT_EQ(WaitFor("node node-0", "{.status.allocatable.nvidia\\.com/gpu}", "8"), "8");
  EXPECT_EQ(
      cluster_->Kubectl("get lease node-0 -n kube-node-lease -o jsonpath={.spec.holderIdentity}")
          .output,
      "node-0");

  Apply(Pod("seven", 7) + "---\n" +
        Pod("short", 1, "", "{sandbox.gpupool.dev/run-seconds: \"20\"}"));
  EXPECT_EQ(WaitFor("pod seven", "{.status.phase}", "Running"), "Running");
  EXPECT_EQ(WaitFor("pod short", "{.status.phase}", "Running"), "Running");
  std::set<std::string> devices;
  for (const char* pod : {"seven", "short"}) {
    std::stringstream list(
        cluster_
            ->Kubectl(std::string("get pod ") + pod + " -n " + kSimulatedNamespace +
                      " -o 'jsonpath={.metadata.annotations.gpupool\\.dev/visible-devices}'")
            .output);
    for (std::string device; std::getline(list, device, ',');) {
      EXPECT_TRUE(
          std::regex_match(device, std::regex("GPU-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}")))
          << device;
      devices.insert(device);
    }
  }
  EXPECT_EQ(devices.size(), 8u);  // none given twice
  EXPECT_EQ(WaitFor("pod short", "{.status.phase}", "Succeeded"), "Succeeded");

  // Bound by hand past the scheduler to a node whose devices are taken: refused.
  Apply(Pod("squeezed", 2, "node-0"));
  EXPECT_EQ(WaitFor("pod squeezed", "{.status.phase}", "Failed"), "Failed");
  EXPECT_EQ(WaitFor("pod squeezed", "{.status.reason}", "UnexpectedAdmissionError"),
            "UnexpectedAdmissionError");

  std::ifstream port_file(cluster_->dir() + "/dcgm.port");
  int dcgm_port = 0;
  port_file >> dcgm_port;
  ASSERT_GT(dcgm_port, 0);
  httplib::Client dcgm("127.0.0.1", dcgm_port);
  const auto page = dcgm.Get("/metrics");
  ASSERT_TRUE(page);
  EXPECT_THAT(page->body, HasSubstr("pod=\"seven\""));
  EXPECT_THAT(page->body, HasSubstr("UUID=\"" + *devices.begin() + "\""));

  // A graceful deletion is confirmed after the pod's stop time, not its 30-s grace.
  const auto deleted = cluster_->Kubectl(
      std::string("delete pod seven --wait=true --timeout=20s -n ") + kSimulatedNamespace);
  EXPECT_EQ(deleted.exit_code, 0) << deleted.output;
}

INSTANTIATE_TEST_SUITE_P(All, SimulatedNodesOnBackend, ::testing::ValuesIn(Backends()),
                         [](const auto& info) { return BackendTestName(info.param); });

}  // namespace
}  // namespace gpupool::backends::testing
