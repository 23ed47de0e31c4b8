#include <gtest/gtest.h>

#include "gpupool/api/pod.h"
#include "gpupool/json/yaml.h"

namespace gpupool::api {
namespace {

TEST(Yaml, PlainScalarsAreTypedAndQuotedOnesStayStrings) {
  auto docs = json::YamlToJson(
      "a: 2\nb: \"2\"\nc: 0.5\nd: '0.5'\ne: true\nf: ~\ng: 500m\nh: [1, x]\n---\n---\nk: v\n",
      "test");
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[0]["a"], 2);
  EXPECT_EQ(docs[0]["b"], "2");
  EXPECT_EQ(docs[0]["c"], 0.5);
  EXPECT_EQ(docs[0]["d"], "0.5");
  EXPECT_EQ(docs[0]["e"], true);
  EXPECT_TRUE(docs[0]["f"].is_null());
  EXPECT_EQ(docs[0]["g"], "500m");
  EXPECT_EQ(docs[0]["h"], Json::array({1, "x"}));
  EXPECT_EQ(docs[1]["k"], "v");
}

TEST(Yaml, SyntaxErrorsNameTheSourceAndLine) {
  try {
    json::YamlToJson("a: 1\nb: [1, 2\n", "jobs.yaml");
    FAIL() << "expected a YamlError";
  } catch (const json::YamlError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("jobs.yaml:", 0), 0u) << error.what();
  }
  EXPECT_THROW(json::LoadYamlFile("/nonexistent/file.yaml"), json::YamlError);
}

TEST(Yaml, JsonToYamlReadsBackAsTheSameValue) {
  const auto value = Json::parse(R"({
    "kind": "TrainingJob", "gpus": "0.5", "replicas": 2, "ratio": 1.5, "on": true,
    "flag": "true", "nothing": null, "empty": "", "tilde": "~", "colon": "a: b",
    "lines": "one\ntwo", "list": ["1", 1, {"k": "v"}], "none": {}, "noList": []})");
  const std::string yaml = json::ToYaml(value);
  const auto docs = json::YamlToJson(yaml, "printed");
  ASSERT_EQ(docs.size(), 1u) << yaml;
  EXPECT_EQ(docs[0], value) << yaml;
  EXPECT_NE(yaml.find("gpus: \"0.5\""), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("replicas: 2"), std::string::npos) << yaml;
}

TEST(PodView, SumsRequestsAndReadsGatesAndAffinity) {
  auto pod_json = Json::parse(R"({
    "metadata": {"name": "p", "namespace": "susan", "labels": {"gpupool.dev/job": "j"}},
    "spec": {"nodeName": "n1", "schedulingGates": [{"name": "gpupool.dev/admission"}],
      "nodeSelector": {"pool": "train"},
      "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "rack", "operator": "In",
                                                     "values": ["r1"]}]}]}}},
      "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
      "containers": [
        {"name": "a", "resources": {"limits": {"nvidia.com/gpu": 2, "cpu": "1", "memory": "1Gi"}}},
        {"name": "b", "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}}}],
      "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "4"}}}]},
    "status": {"phase": "Failed", "containerStatuses": [
        {"state": {"terminated": {"exitCode": 3}}}]}})");
  json::FieldErrors errors;
  Pod pod = DecodePod(pod_json, errors);
  ASSERT_EQ(json::JoinErrors(errors), "");
  EXPECT_EQ(pod.requests, (ResourceAmounts{2000, 4000, 1610612736}));
  EXPECT_EQ(pod.scheduling_gates, std::vector<std::string>{"gpupool.dev/admission"});
  ASSERT_EQ(pod.required_affinity.size(), 1u);
  EXPECT_EQ(pod.required_affinity[0][0].values, std::vector<std::string>{"r1"});
  EXPECT_EQ(pod.tolerations[0].op, "Exists");
  EXPECT_EQ(pod.exit_code, 3);
  EXPECT_EQ(pod.metadata.labels.at("gpupool.dev/job"), "j");
}

TEST(PodView, BadResourceQuantityNamesTheContainerField) {
  auto pod_json = Json::parse(R"({"metadata": {"name": "p"}, "spec": {"containers": [
      {"name": "a", "resources": {"requests": {"nvidia.com/gpu": "lots"}}}]}})");
  json::FieldErrors errors;
  DecodePod(pod_json, errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "spec.containers[0].resources.requests.nvidia.com/gpu");
}

TEST(PodView, WrongTypeInsideAffinityNamesTheNestedField) {
  auto pod_json = Json::parse(R"({"metadata": {"name": "p"}, "spec": {"containers": [],
      "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": 7, "operator": "In"}]}]}}}}})");
  json::FieldErrors errors;
  DecodePod(pod_json, errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].ToString(),
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            "nodeSelectorTerms[0].matchExpressions[0].key: must be a string, got integer");
}

TEST(NodeView, ReadsAllocatableTaintsAndReadiness) {
  auto node_json = Json::parse(R"({"metadata": {"name": "n1", "labels": {"pool": "train"}},
    "spec": {"unschedulable": true, "taints": [{"key": "gpu", "effect": "NoSchedule"}]},
    "status": {"allocatable": {"nvidia.com/gpu": "8", "cpu": "64", "memory": "256Gi", "pods": "110"},
               "conditions": [{"type": "Ready", "status": "True"}]}})");
  json::FieldErrors errors;
  Node node = DecodeNode(node_json, errors);
  ASSERT_EQ(json::JoinErrors(errors), "");
  EXPECT_TRUE(node.unschedulable);
  EXPECT_TRUE(node.ready);
  EXPECT_EQ(node.allocatable.gpu_milli, 8000);
  EXPECT_EQ(node.allocatable_pods, 110);
  EXPECT_EQ(node.taints[0].effect, "NoSchedule");
}

}  // namespace
}  // namespace gpupool::api
