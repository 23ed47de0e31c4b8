// Server-side apply over HTTP against a running sandbox: creation, field
// ownership, removal of fields a manager stops applying, conflicts and force.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apply_util.h"

namespace gpupool::sandbox::testing {
namespace {

using ::testing::HasSubstr;

class ApplyTest : public ::testing::Test {
 protected:
  Reply Get(const std::string& name) { return Send(*client_, "GET", configmaps_ + "/" + name); }

  SandboxProcess sandbox_{{"--plain-http"}};
  std::unique_ptr<httplib::Client> client_ = sandbox_.Http();
  const std::string configmaps_ = "/api/v1/namespaces/default/configmaps";
};

TEST_F(ApplyTest, CreatesWith201ThenUpdatesWith200) {
  Reply reply =
      ApplyYaml(*client_, configmaps_ + "/settings", ConfigMapYaml("settings", "{a: '1'}"));
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_EQ(reply.json["data"]["a"], "1");
  EXPECT_EQ(reply.json["metadata"]["namespace"], "default");
  const Json entry = ManagedEntry(reply.json, "tester");
  ASSERT_TRUE(entry.is_object()) << reply.body;
  EXPECT_EQ(entry["apiVersion"], "v1");
  EXPECT_EQ(entry["fieldsType"], "FieldsV1");
  EXPECT_EQ(entry["fieldsV1"], Json::parse(R"({"f:data": {"f:a": {}}})"));
  EXPECT_TRUE(entry["time"].is_string());
  EXPECT_EQ(reply.json["metadata"]["managedFields"].size(), 1u) << reply.body;
  const std::string created_rv = reply.json["metadata"]["resourceVersion"];

  // The same configuration again changes nothing, not even the version.
  reply = ApplyYaml(*client_, configmaps_ + "/settings", ConfigMapYaml("settings", "{a: '1'}"));
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json["metadata"]["resourceVersion"], created_rv);

  reply = ApplyYaml(*client_, configmaps_ + "/settings", ConfigMapYaml("settings", "{a: '2'}"));
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_NE(reply.json["metadata"]["resourceVersion"], created_rv);
  EXPECT_EQ(Get("settings").json["data"]["a"], "2");
}

TEST_F(ApplyTest, AcceptsJsonBodies) {
  const Json body = {{"apiVersion", "v1"},
                     {"kind", "ConfigMap"},
                     {"metadata", {{"name", "from-json"}, {"labels", {{"app", "x"}}}}},
                     {"data", {{"k", "v"}}}};
  const Reply reply = ApplyYaml(*client_, configmaps_ + "/from-json", body.dump());
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_EQ(ManagedEntry(reply.json, "tester")["fieldsV1"],
            Json::parse(R"({"f:data": {"f:k": {}}, "f:metadata": {"f:labels": {"f:app": {}}}})"));
}

TEST_F(ApplyTest, RemovesFieldsTheManagerNoLongerAppliesUnlessOthersOwnThem) {
  const std::string path = configmaps_ + "/owned";
  ASSERT_EQ(ApplyYaml(*client_, path, ConfigMapYaml("owned", "{a: '1', b: '2', c: '3'}")).status,
            201);
  // Another manager applies c with the same value: both own it.
  ASSERT_EQ(
      ApplyYaml(*client_, path, ConfigMapYaml("owned", "{c: '3'}"), "fieldManager=other").status,
      200);
  // An ordinary write by a third manager adds d.
  Reply reply = Send(*client_, "PATCH", path + "?fieldManager=editor", Json{{"data", {{"d", "4"}}}},
                     "application/merge-patch+json");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(ManagedEntry(reply.json, "editor", "Update")["fieldsV1"],
            Json::parse(R"({"f:data": {"f:d": {}}})"));

  reply = ApplyYaml(*client_, path, ConfigMapYaml("owned", "{a: '1'}"));
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json["data"], Json::parse(R"({"a": "1", "c": "3", "d": "4"})"));
  EXPECT_EQ(ManagedEntry(reply.json, "tester")["fieldsV1"],
            Json::parse(R"({"f:data": {"f:a": {}}})"));
}

TEST_F(ApplyTest, ChangingAFieldAnotherManagerOwnsIsAConflictUnlessForced) {
  const std::string path = configmaps_ + "/contested";
  Json object = ConfigMapJson("contested");
  object["data"] = {{"a", "1"}, {"b", "1"}};
  ASSERT_EQ(Send(*client_, "POST", configmaps_ + "?fieldManager=kubectl-client-side-apply", object)
                .status,
            201);

  Reply reply = ApplyYaml(*client_, path, ConfigMapYaml("contested", "{a: '2'}"));
  ASSERT_EQ(reply.status, 409) << reply.body;
  EXPECT_EQ(reply.json["reason"], "Conflict");
  EXPECT_EQ(reply.json["message"],
            "Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using v1: "
            ".data.a");
  ASSERT_EQ(reply.json["details"]["causes"].size(), 1u) << reply.body;
  const Json cause = reply.json["details"]["causes"][0];
  EXPECT_EQ(cause["type"], "FieldManagerConflict");
  EXPECT_EQ(cause["message"], "conflict with \"kubectl-client-side-apply\" using v1");
  EXPECT_EQ(cause["field"], ".data.a");
  EXPECT_EQ(Get("contested").json["data"]["a"], "1");

  // Two conflicting fields: each is a cause.
  reply = ApplyYaml(*client_, path, ConfigMapYaml("contested", "{a: '2', b: '2'}"));
  ASSERT_EQ(reply.status, 409) << reply.body;
  EXPECT_EQ(CauseFields(reply.json), (std::vector<std::string>{".data.a", ".data.b"}));
  EXPECT_THAT(reply.json["message"].get<std::string>(),
              HasSubstr("Apply failed with 2 conflicts: conflicts with "
                        "\"kubectl-client-side-apply\" using v1:\n- .data.a\n- .data.b"));

  // Applying the value the other manager set is no conflict: the field is shared.
  reply = ApplyYaml(*client_, path, ConfigMapYaml("contested", "{b: '1'}"), "fieldManager=sharer");
  EXPECT_EQ(reply.status, 200) << reply.body;

  // Forced, the field changes value and owner.
  reply = ApplyYaml(*client_, path, ConfigMapYaml("contested", "{a: '2'}"),
                    "fieldManager=tester&force=true");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json["data"]["a"], "2");
  EXPECT_EQ(ManagedEntry(reply.json, "tester")["fieldsV1"],
            Json::parse(R"({"f:data": {"f:a": {}}})"));
  EXPECT_EQ(ManagedEntry(reply.json, "kubectl-client-side-apply", "Update")["fieldsV1"],
            Json::parse(R"({"f:data": {".": {}, "f:b": {}}})"));
}

TEST_F(ApplyTest, ConflictsBetweenAppliersNameTheManagerAlone) {
  const std::string path = configmaps_ + "/appliers";
  ASSERT_EQ(
      ApplyYaml(*client_, path, ConfigMapYaml("appliers", "{a: '1'}"), "fieldManager=first").status,
      201);
  const Reply reply =
      ApplyYaml(*client_, path, ConfigMapYaml("appliers", "{a: '2'}"), "fieldManager=second");
  ASSERT_EQ(reply.status, 409) << reply.body;
  EXPECT_EQ(reply.json["details"]["causes"][0]["message"], "conflict with \"first\"");
}

TEST_F(ApplyTest, RespectsDryRun) {
  const std::string path = configmaps_ + "/dry";
  Reply reply =
      ApplyYaml(*client_, path, ConfigMapYaml("dry", "{a: '1'}"), "fieldManager=tester&dryRun=All");
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_EQ(reply.json["data"]["a"], "1");
  EXPECT_EQ(Get("dry").status, 404);
  ASSERT_EQ(ApplyYaml(*client_, path, ConfigMapYaml("dry", "{a: '1'}")).status, 201);
  reply =
      ApplyYaml(*client_, path, ConfigMapYaml("dry", "{a: '2'}"), "fieldManager=tester&dryRun=All");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json["data"]["a"], "2");
  EXPECT_EQ(Get("dry").json["data"]["a"], "1");
}

TEST_F(ApplyTest, AResourceVersionIsAPrecondition) {
  const std::string path = configmaps_ + "/versioned";
  const auto with_version = [](const std::string& rv) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: versioned, resourceVersion: \"" + rv +
           "\"}\ndata: {a: '1'}\n";
  };
  EXPECT_EQ(ApplyYaml(*client_, path, with_version("1")).status, 409);
  const Reply created = ApplyYaml(*client_, path, ConfigMapYaml("versioned", "{a: '0'}"));
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string rv = created.json["metadata"]["resourceVersion"];
  Reply reply = ApplyYaml(*client_, path, with_version(rv + "0"));
  EXPECT_EQ(reply.status, 409) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("the object has been modified"));
  reply = ApplyYaml(*client_, path, with_version(rv));
  EXPECT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json["data"]["a"], "1");
}

TEST_F(ApplyTest, TheBodyMustNameTheObjectOfTheUrl) {
  const std::string path = configmaps_ + "/target";
  Reply reply = ApplyYaml(*client_, path, ConfigMapYaml("other", "{a: '1'}"));
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("the name of the object (other) does not match the name on "
                                    "the URL (target)"));
  reply = ApplyYaml(*client_, path, "apiVersion: v1\nkind: ConfigMap\ndata: {a: '1'}\n");
  EXPECT_EQ(reply.status, 400) << reply.body;
  reply = ApplyYaml(*client_, path, "apiVersion: v2\nkind: ConfigMap\nmetadata: {name: target}\n");
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("Incorrect version specified in apply patch"));
  reply = ApplyYaml(*client_, path, "apiVersion: v1\nkind: Secret\nmetadata: {name: target}\n");
  EXPECT_EQ(reply.status, 400) << reply.body;
  reply = ApplyYaml(
      *client_, path,
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: target, namespace: kube-system}\n");
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_EQ(Get("target").status, 404);
}

TEST_F(ApplyTest, NeedsAFieldManagerAndOnlyApplyTakesForce) {
  Reply reply = ApplyYaml(*client_, configmaps_ + "/x", ConfigMapYaml("x", "{a: '1'}"), "");
  ASSERT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(reply.json["reason"], "Invalid");
  EXPECT_EQ(CauseFields(reply.json), std::vector<std::string>{"fieldManager"});
  EXPECT_THAT(reply.json["message"].get<std::string>(),
              HasSubstr("fieldManager: Required value: is required for apply patch"));
  ASSERT_EQ(Send(*client_, "POST", configmaps_, ConfigMapJson("x")).status, 201);
  reply = Send(*client_, "PATCH", configmaps_ + "/x?force=true", Json{{"data", {{"a", "1"}}}},
               "application/merge-patch+json");
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(CauseFields(reply.json), std::vector<std::string>{"force"});
  reply = Send(*client_, "POST", configmaps_ + "?fieldManager=" + std::string(129, 'm'),
               ConfigMapJson("y"));
  EXPECT_EQ(reply.status, 422) << reply.body;
}

TEST_F(ApplyTest, TheStatusSubresourceIsNotCreatedByApply) {
  const Reply reply = ApplyYaml(*client_, "/api/v1/namespaces/default/pods/missing/status",
                                "apiVersion: v1\nkind: Pod\nmetadata: {name: missing}\n"
                                "status: {phase: Running}\n");
  EXPECT_EQ(reply.status, 404) << reply.body;
}

}  // namespace
}  // namespace gpupool::sandbox::testing
