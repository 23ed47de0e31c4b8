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
using ::testing::Not;

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
  for (int i = 0; i < 50; ++i) {
    if (Send(*client, "GET", kPods + "/gpu").json["spec"].value("nodeName", "") == "node-0") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::string described = sandbox.Kubectl("describe node node-0").output;
  EXPECT_THAT(described, ::testing::ContainsRegex("nvidia.com/gpu +1 +1")) << described;
}

TEST(BuiltinFidelityTest, HostileBodiesGetClearErrorsAndChangeNothing) {
  SandboxProcess sandbox({"--plain-http"});
  auto client = sandbox.Http();
  const std::string configmaps = "/api/v1/namespaces/default/configmaps";
  const std::string deep(100000, '[');
  Reply reply = SendRaw(*client, "POST", configmaps, deep + std::string(100000, ']'));
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("nested deeper"));
  reply = SendRaw(*client, "POST", configmaps, "a: " + std::string(50000, '['), "application/yaml");
  EXPECT_EQ(reply.status, 400) << reply.body;
  std::string block = "a:\n";
  for (int i = 1; i < 1500; ++i) block += std::string(i, ' ') + "b:\n";
  reply = SendRaw(*client, "POST", configmaps, block, "application/yaml");
  EXPECT_EQ(reply.status, 400) << reply.body;
  ASSERT_EQ(Send(*client, "POST", configmaps, ConfigMapJson("x")).status, 201);
  reply = SendRaw(*client, "PATCH", configmaps + "/x", deep, "application/merge-patch+json");
  EXPECT_EQ(reply.status, 400) << reply.body;
  reply = SendRaw(*client, "POST", configmaps, "{not json");
  EXPECT_EQ(reply.status, 400);
  EXPECT_THAT(reply.body, Not(HasSubstr("json.exception")));
  reply = SendRaw(*client, "POST", configmaps, R"({"metadata":{"name":5}})");
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_THAT(reply.body, Not(HasSubstr("json.exception")));
  Json huge = ConfigMapJson("huge");
  huge["data"]["blob"] = std::string(5 << 20, 'x');
  reply = Send(*client, "POST", configmaps, huge);
  EXPECT_EQ(reply.status, 413) << reply.body.substr(0, 300);
  Json large = ConfigMapJson("large");
  large["data"]["blob"] = std::string(1200 * 1024, 'x');
  reply = Send(*client, "POST", configmaps, large);
  EXPECT_EQ(reply.status, 422) << reply.body.substr(0, 300);
  Json annotated = ConfigMapJson("annotated");
  annotated["metadata"]["annotations"]["a"] = std::string(300 * 1024, 'x');
  EXPECT_EQ(Send(*client, "POST", configmaps, annotated).status, 422);
  reply = Send(*client, "GET", configmaps);
  EXPECT_EQ(reply.status, 200) << "the sandbox still serves";
  EXPECT_EQ(reply.json["items"].size(), 1u) << "only x was created";
}

// Names by kind, as the real server checks them: a service's is a DNS-1035
// label, a namespace's a DNS-1123 label; a pod's hostname and subdomain are
// DNS-1123 labels. Nothing refused is stored.
TEST(BuiltinFidelityTest, ServiceAndNamespaceNamesAndPodHostnamesAreLabels) {
  SandboxProcess sandbox({"--plain-http"});
  auto client = sandbox.Http();
  const std::string services = "/api/v1/namespaces/default/services";
  const auto service = [](const std::string& name) {
    return Json{{"apiVersion", "v1"},
                {"kind", "Service"},
                {"metadata", {{"name", name}}},
                {"spec", {{"clusterIP", "None"}}}};
  };
  for (const std::string& name :
       std::vector<std::string>{"1digit", "dotted.name", std::string(64, 'a')}) {
    const Reply reply = Send(*client, "POST", services, service(name));
    EXPECT_EQ(reply.status, 422) << name << ": " << reply.body;
    EXPECT_EQ(CauseFields(reply.json), std::vector<std::string>{"metadata.name"}) << name;
  }
  EXPECT_EQ(Send(*client, "POST", services, service("web-1")).status, 201);
  Reply reply =
      Send(*client, "POST", "/api/v1/namespaces",
           Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team.a"}}}});
  EXPECT_EQ(reply.status, 422) << reply.body;
  Json pod = GpuPod("gang-0");
  pod["spec"]["hostname"] = "gang-0";
  pod["spec"]["subdomain"] = "dotted.gang";
  reply = Send(*client, "POST", kPods, pod);
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(CauseFields(reply.json), std::vector<std::string>{"spec.subdomain"});
  pod["spec"]["subdomain"] = "gang";
  EXPECT_EQ(Send(*client, "POST", kPods, pod).status, 201);
  reply = Send(*client, "GET", services);
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.json["items"].size(), 1u) << "only web-1 was stored";
}

TEST(BuiltinFidelityTest, QueryParametersAreRangeChecked) {
  SandboxProcess sandbox({"--plain-http"});
  auto client = sandbox.Http();
  const std::string configmaps = "/api/v1/namespaces/default/configmaps";
  for (const char* query : {"?watch=true&timeoutSeconds=1e17", "?watch=true&timeoutSeconds=-1",
                            "?watch=true&timeoutSeconds=99999999999999999999", "?limit=1e17",
                            "?limit=-3", "?limit=99999999999999999999"}) {
    const Reply reply = Send(*client, "GET", configmaps + query);
    EXPECT_EQ(reply.status, 400) << query << ": " << reply.body;
  }
  // A very long but well-formed timeout is served (and ended by the client).
  ASSERT_EQ(Send(*client, "POST", configmaps, ConfigMapJson("seen")).status, 201);
  const auto events =
      ReadWatchEvents(*client, configmaps + "?watch=true&timeoutSeconds=9000000000000000000",
                      [](const Json&) { return true; });
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "ADDED");
}

}  // namespace
}  // namespace gpupool::sandbox::testing
