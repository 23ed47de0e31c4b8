// metadata.managedFields kept by every write, and server-side apply of
// built-in kinds and custom resources (keyed lists, the status subresource).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apply_util.h"
#include "gpupool/json/yaml.h"

namespace gpupool::sandbox::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ManagedFieldsTest : public ::testing::Test {
 protected:
  SandboxProcess sandbox_{{"--plain-http", "--nodes", "1x1"}};
  std::unique_ptr<httplib::Client> client_ = sandbox_.Http();
  const std::string configmaps_ = "/api/v1/namespaces/default/configmaps";
};

TEST_F(ManagedFieldsTest, WritersGetUpdateEntriesNamedByFieldManagerOrUserAgent) {
  client_->set_default_headers({{"User-Agent", "my-tool/1.2.3 (linux/amd64)"}});
  Json object = ConfigMapJson("cm");
  object["data"] = {{"a", "1"}, {"b", "2"}};
  Reply reply = Send(*client_, "POST", configmaps_, object);
  ASSERT_EQ(reply.status, 201) << reply.body;
  Json entry = ManagedEntry(reply.json, "my-tool", "Update");
  ASSERT_TRUE(entry.is_object()) << reply.body;
  EXPECT_EQ(entry["fieldsV1"], Json::parse(R"({"f:data": {".": {}, "f:a": {}, "f:b": {}}})"));
  EXPECT_EQ(entry["apiVersion"], "v1");

  reply = Send(*client_, "PATCH", configmaps_ + "/cm?fieldManager=patcher",
               Json{{"data", {{"a", "9"}}}}, "application/merge-patch+json");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(ManagedEntry(reply.json, "patcher", "Update")["fieldsV1"],
            Json::parse(R"({"f:data": {"f:a": {}}})"));
  EXPECT_EQ(ManagedEntry(reply.json, "my-tool", "Update")["fieldsV1"],
            Json::parse(R"({"f:data": {".": {}, "f:b": {}}})"));

  // A write that changes nothing leaves the object, managedFields included, alone.
  const std::string rv = reply.json["metadata"]["resourceVersion"];
  reply = Send(*client_, "PATCH", configmaps_ + "/cm?fieldManager=idle",
               Json{{"data", {{"a", "9"}}}}, "application/merge-patch+json");
  EXPECT_EQ(reply.json["metadata"]["resourceVersion"], rv);
  EXPECT_TRUE(ManagedEntry(reply.json, "idle", "Update").is_null());
}

TEST_F(ManagedFieldsTest, SentManagedFieldsAreKeptWhenValidAndIgnoredOtherwise) {
  Json object = ConfigMapJson("cm");
  object["data"] = {{"a", "1"}};
  ASSERT_EQ(Send(*client_, "POST", configmaps_ + "?fieldManager=creator", object).status, 201);
  const Json stored = Send(*client_, "GET", configmaps_ + "/cm").json;
  const Json original = stored["metadata"]["managedFields"];

  for (const Json& garbage :
       {Json::parse(R"([{"manager": "x", "operation": "Bogus", "apiVersion": "v1",
                         "fieldsType": "FieldsV1", "fieldsV1": {}}])"),
        Json::parse(R"([{"manager": "x", "operation": "Update", "apiVersion": "v1",
                         "fieldsType": "FieldsV1", "fieldsV1": {"nonsense": {}}}])"),
        Json::parse(R"([{"manager": "x", "operation": "Update", "apiVersion": "v1",
                         "fieldsType": "FieldsV2"}])"),
        Json::parse(R"("not a list")"), Json::parse(R"([1, 2])")}) {
    Json sent = stored;
    sent["metadata"]["managedFields"] = garbage;
    const Reply reply = Send(*client_, "PUT", configmaps_ + "/cm", sent);
    ASSERT_EQ(reply.status, 200) << garbage.dump() << reply.body;
    EXPECT_EQ(reply.json["metadata"]["managedFields"], original) << garbage.dump();
  }

  // Valid entries replace the recorded ones (how kubectl moves fields between managers).
  const Json moved = Json::parse(R"([{"manager": "kubectl", "operation": "Apply",
      "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}}}}])");
  Reply reply = Send(
      *client_, "PATCH", configmaps_ + "/cm",
      Json::array({{{"op", "replace"}, {"path", "/metadata/managedFields"}, {"value", moved}}}),
      "application/json-patch+json");
  ASSERT_EQ(reply.status, 200) << reply.body;
  ASSERT_EQ(reply.json["metadata"]["managedFields"].size(), 1u) << reply.body;
  EXPECT_EQ(reply.json["metadata"]["managedFields"][0]["manager"], "kubectl");

  // A list of one empty entry clears them.
  reply = Send(*client_, "PATCH", configmaps_ + "/cm",
               Json{{"metadata", {{"managedFields", Json::array({Json::object()})}}}},
               "application/merge-patch+json");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_FALSE(reply.json["metadata"].contains("managedFields")) << reply.body;
}

const char* kPodYaml = R"(apiVersion: v1
kind: Pod
metadata: {name: worker}
spec:
  containers:
  - name: main
    image: busybox
    env: [{name: MODE, value: fast}]
)";

TEST_F(ManagedFieldsTest, PodContainersAreKeyedByName) {
  const std::string pods = "/api/v1/namespaces/default/pods";
  Reply reply = ApplyYaml(*client_, pods + "/worker", kPodYaml, "fieldManager=deployer");
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_EQ(ManagedEntry(reply.json, "deployer")["fieldsV1"], Json::parse(R"({"f:spec": {
      "f:containers": {"k:{\"name\":\"main\"}": {".": {}, "f:name": {}, "f:image": {},
        "f:env": {"k:{\"name\":\"MODE\"}": {".": {}, "f:name": {}, "f:value": {}}}}}}})"));
  std::string changed = kPodYaml;
  changed.replace(changed.find("image: busybox"), 14, "image: busybox:2");
  reply = ApplyYaml(*client_, pods + "/worker", changed, "fieldManager=upgrader");
  ASSERT_EQ(reply.status, 409) << reply.body;
  EXPECT_EQ(CauseFields(reply.json),
            std::vector<std::string>{".spec.containers[name=\"main\"].image"});
  EXPECT_EQ(reply.json["details"]["causes"][0]["message"], "conflict with \"deployer\"");
  reply = ApplyYaml(*client_, pods + "/worker", changed, "fieldManager=upgrader&force=true");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json["spec"]["containers"][0]["image"], "busybox:2");
  // The defaults the server filled in belong to no one.
  EXPECT_EQ(reply.json["spec"]["restartPolicy"], "Always");
  EXPECT_THAT(reply.json["metadata"]["managedFields"].dump(), Not(HasSubstr("restartPolicy")));
}

TEST_F(ManagedFieldsTest, LeasesAndNodesAreApplied) {
  const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
  const std::string lease =
      "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: leader}\n"
      "spec: {holderIdentity: a, leaseDurationSeconds: 15}\n";
  ASSERT_EQ(ApplyYaml(*client_, leases + "/leader", lease, "fieldManager=a").status, 201);
  std::string taken = lease;
  taken.replace(taken.find("holderIdentity: a"), 17, "holderIdentity: b");
  Reply reply = ApplyYaml(*client_, leases + "/leader", taken, "fieldManager=b");
  EXPECT_EQ(reply.status, 409) << reply.body;
  EXPECT_EQ(CauseFields(reply.json), (std::vector<std::string>{".spec.holderIdentity"}));
  reply = ApplyYaml(*client_, leases + "/leader", taken, "fieldManager=b&force=true");
  EXPECT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json["spec"]["holderIdentity"], "b");

  // A node's labels, next to what the simulated kubelet wrote.
  reply = ApplyYaml(*client_, "/api/v1/nodes/node-0",
                    "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-0\n"
                    "  labels: {team: vision}\n",
                    "fieldManager=labeller");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json["metadata"]["labels"]["team"], "vision");
  EXPECT_EQ(reply.json["status"]["capacity"]["nvidia.com/gpu"], "1");
}

class CustomResourceApplyTest : public ManagedFieldsTest {
 protected:
  void SetUp() override {
    for (const auto& crd : json::LoadYamlFile(SourcePath("crds/projects.gpupool.dev.yaml"))) {
      ASSERT_EQ(
          Send(*client_, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
              .status,
          201);
    }
  }

  const std::string projects_ = "/apis/gpupool.dev/v1alpha1/projects";
};

const char* kProjectYaml = R"(apiVersion: gpupool.dev/v1alpha1
kind: Project
metadata: {name: vision}
spec:
  namespaces: [vision]
  priority: 1
  quotas: [{queue: train, gpu: 2}]
status: {observedGeneration: 7}
)";

TEST_F(CustomResourceApplyTest, SpecAndStatusAreAppliedSeparately) {
  Reply reply = ApplyYaml(*client_, projects_ + "/vision", kProjectYaml, "fieldManager=admin");
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_FALSE(reply.json.contains("status")) << reply.body;
  EXPECT_EQ(ManagedEntry(reply.json, "admin")["fieldsV1"], Json::parse(R"({"f:spec": {
      "f:namespaces": {"v:\"vision\"": {}}, "f:priority": {},
      "f:quotas": {"k:{\"queue\":\"train\"}": {".": {}, "f:queue": {}, "f:gpu": {}}}}})"));

  // Another manager adds a quota for another queue: the keyed list merges.
  reply = ApplyYaml(*client_, projects_ + "/vision",
                    "apiVersion: gpupool.dev/v1alpha1\nkind: Project\nmetadata: {name: vision}\n"
                    "spec: {quotas: [{queue: build, gpu: 1}]}\n",
                    "fieldManager=builder");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json["spec"]["quotas"].size(), 2u) << reply.body;

  // Through /status only the status is applied, by its own entry.
  reply = ApplyYaml(*client_, projects_ + "/vision/status", kProjectYaml, "fieldManager=gpupool");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json["status"]["observedGeneration"], 7);
  const Json status_entry = ManagedEntry(reply.json, "gpupool");
  EXPECT_EQ(status_entry["subresource"], "status");
  EXPECT_EQ(status_entry["fieldsV1"], Json::parse(R"({"f:status": {"f:observedGeneration": {}}})"));
  EXPECT_EQ(reply.json["spec"]["priority"], 1);
  EXPECT_EQ(reply.json["metadata"]["generation"], 2);
}

TEST_F(CustomResourceApplyTest, ConflictsNameTheClientSideApplier) {
  Json project = json::YamlToJson(kProjectYaml, "project")[0];
  project.erase("status");
  ASSERT_EQ(
      Send(*client_, "POST", projects_ + "?fieldManager=kubectl-client-side-apply", project).status,
      201);
  std::string raised = kProjectYaml;
  raised.replace(raised.find("priority: 1"), 11, "priority: 5");
  const Reply reply = ApplyYaml(*client_, projects_ + "/vision", raised, "fieldManager=kubectl");
  ASSERT_EQ(reply.status, 409) << reply.body;
  ASSERT_EQ(reply.json["details"]["causes"].size(), 1u) << reply.body;
  EXPECT_EQ(reply.json["details"]["causes"][0]["field"], ".spec.priority");
  EXPECT_EQ(reply.json["details"]["causes"][0]["message"],
            "conflict with \"kubectl-client-side-apply\" using gpupool.dev/v1alpha1");
}

}  // namespace
}  // namespace gpupool::sandbox::testing
