// Simulated nodes as a real server stores them: canonical quantities and
// complete node info, added up by kubectl describe.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "fidelity_util.h"

namespace gpupool::sandbox::testing {
namespace {

const std::string kPods = "/api/v1/namespaces/default/pods";

// The pods' side (requests defaulted from limits) is checked on every backend
// by tests/backends/fidelity_test.cpp.
TEST(BuiltinFidelityTest, NodesReportCanonicalCapacityAndDescribeAddsUpDefaultedRequests) {
  SandboxProcess sandbox({"--nodes", "1x8", "--time-scale", "20"});
  auto client = sandbox.Http();
  ASSERT_EQ(Send(*client, "POST", kPods, GpuPodJson("gpu")).status, 201);
  const Reply node = Send(*client, "GET", "/api/v1/nodes/node-0");
  EXPECT_EQ(node.json["status"]["capacity"]["nvidia.com/gpu"], "8");
  EXPECT_EQ(node.json["status"]["capacity"]["cpu"], "64");
  EXPECT_EQ(node.json["status"]["capacity"]["memory"], "512Gi");
  EXPECT_EQ(node.json["status"]["allocatable"]["memory"], "512Gi");
  // What kubectl describe node adds up comes from the defaulted requests.
  for (int i = 0; i < 50; ++i) {
    if (Send(*client, "GET", kPods + "/gpu").json["spec"].value("nodeName", "") == "node-0") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::string described = sandbox.Kubectl("describe node node-0").output;
  EXPECT_THAT(described, ::testing::ContainsRegex("nvidia.com/gpu +1 +1")) << described;
}

}  // namespace
}  // namespace gpupool::sandbox::testing
