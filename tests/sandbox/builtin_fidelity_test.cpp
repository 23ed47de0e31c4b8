// Built-in objects as a real server stores them (unknown fields, defaulted
// requests, canonical quantities, complete node info), hostile bodies, range
// checks and many open connections.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gpupool::sandbox::testing
