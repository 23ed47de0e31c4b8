// Built-in objects as a real server stores them (unknown fields, defaulted
// requests, canonical quantities, complete node info), hostile bodies, range
// checks and many open connections.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "fidelity_util.h"

namespace gpupool::sandbox::testing {
namespace {

using ::testing::HasSubstr;

const std::string kPods = "/api/v1/namespaces/default/pods";

Json GpuPod(const std::string& name, const Json& container_extra = Json::object()) {
  Json container = {{"name", "main"},
                    {"image", "busybox"},
                    {"resources", {{"limits", {{"nvidia.com/gpu", 1}, {"cpu", "2000m"}}}}}};
  container.update(container_extra);
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}}},
          {"spec", {{"containers", {container}}}}};
}

TEST(BuiltinFidelityTest, UnknownFieldsAreRefusedWhenStrictAndDroppedOtherwise) {
  SandboxProcess sandbox;  // HTTPS: kubectl sends its token only over TLS
  auto client = sandbox.Http();
  Reply reply = Send(*client, "POST", kPods + "?fieldValidation=Strict",
                     GpuPod("typo", {{"imagee", "busybox:2"}}));
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("unknown field \\\"spec.containers[0].imagee\\\""));
  reply = Send(*client, "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict",
               Json{{"apiVersion", "v1"},
                    {"kind", "ConfigMap"},
                    {"metadata", {{"name", "c"}}},
                    {"dataa", {{"a", "b"}}}});
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("dataa"));
  reply = Send(*client, "POST", kPods, GpuPod("warned", {{"imagee", "busybox:2"}}));
  EXPECT_EQ(reply.status, 201) << reply.body;
  EXPECT_FALSE(reply.json["spec"]["containers"][0].contains("imagee"));
  const auto warning = reply.headers.find("Warning");
  ASSERT_NE(warning, reply.headers.end());
  EXPECT_THAT(warning->second, HasSubstr("spec.containers[0].imagee"));
  // kubectl validates on the server by default, so its typo is an error too.
  const auto result = sandbox.Kubectl(
      "apply -f " + sandbox.WriteFile("typo.yaml",
                                      "apiVersion: v1\nkind: Pod\nmetadata: {name: k}\nspec:\n"
                                      "  containers:\n  - {name: c, image: busybox, imagee: x}\n"));
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("imagee"));
}

TEST(BuiltinFidelityTest, RequestsDefaultFromLimitsAndQuantitiesAreCanonicalStrings) {
  SandboxProcess sandbox({"--nodes", "1x8", "--time-scale", "20"});
  auto client = sandbox.Http();
  Reply reply = Send(*client, "POST", kPods, GpuPod("gpu"));
  ASSERT_EQ(reply.status, 201) << reply.body;
  const Json resources = reply.json["spec"]["containers"][0]["resources"];
  EXPECT_EQ(resources["limits"]["nvidia.com/gpu"], "1");
  EXPECT_EQ(resources["requests"]["nvidia.com/gpu"], "1");
  EXPECT_EQ(resources["limits"]["cpu"], "2");
  EXPECT_EQ(resources["requests"]["cpu"], "2");
  const Reply node = Send(*client, "GET", "/api/v1/nodes/node-0");
  EXPECT_EQ(node.json["status"]["capacity"]["nvidia.com/gpu"], "8");
  EXPECT_EQ(node.json["status"]["capacity"]["cpu"], "64");
  EXPECT_EQ(node.json["status"]["capacity"]["memory"], "512Gi");
  EXPECT_EQ(node.json["status"]["allocatable"]["memory"], "512Gi");
  // What kubectl describe node adds up comes from the defaulted requests.
  std::string described;
  for (int i = 0; i < 50; ++i) {
    described = sandbox.Kubectl("describe node node-0").output;
    if (described.find("default/gpu") != std::string::npos) break;  // bound
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_THAT(described, ::testing::ContainsRegex("nvidia.com/gpu +1 +1")) << described;
}

}  // namespace
}  // namespace gpupool::sandbox::testing
