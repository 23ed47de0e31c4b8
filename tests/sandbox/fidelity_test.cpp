// Requests a real kube-apiserver refuses or answers in its own way, sent over
// HTTP to a running sandbox: where the sandbox is more lenient, a controller
// that passes here would break on a cluster.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fidelity_util.h"

namespace gpupool::sandbox::testing {
namespace {

using ::testing::HasSubstr;

class FidelityTest : public ::testing::Test {
 protected:
  SandboxProcess sandbox_{{"--plain-http"}};
  std::unique_ptr<httplib::Client> client_ = sandbox_.Http();
  const std::string configmaps_ = "/api/v1/namespaces/default/configmaps";
};

TEST_F(FidelityTest, OwnerReferencesNeedUidNameKindAndApiVersion) {
  Json object = ConfigMapJson("owned");
  object["metadata"]["ownerReferences"] = {
      {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "owner"}}};
  Reply reply = Send(*client_, "POST", configmaps_, object);
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(reply.json["reason"], "Invalid");
  EXPECT_EQ(reply.json["details"]["causes"][0]["field"], "metadata.ownerReferences.uid");
  object["metadata"]["ownerReferences"] = {{{"uid", "1234"}}};
  reply = Send(*client_, "POST", configmaps_, object);
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(
      CauseFields(reply.json),
      (std::vector<std::string>{"metadata.ownerReferences.apiVersion",
                                "metadata.ownerReferences.kind", "metadata.ownerReferences.name"}));
  object["metadata"]["ownerReferences"] = {
      {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "owner"}, {"uid", "1234"}}};
  EXPECT_EQ(Send(*client_, "POST", configmaps_, object).status, 201);
  // An update may not drop the uid either.
  reply = Send(*client_, "PATCH", configmaps_ + "/owned",
               Json{{"metadata",
                     {{"ownerReferences",
                       {{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "owner"}}}}}}},
               "application/merge-patch+json");
  EXPECT_EQ(reply.status, 422) << reply.body;
}

TEST_F(FidelityTest, NoFinalizerMayBeAddedToAnObjectBeingDeleted) {
  Json object = ConfigMapJson("held");
  object["metadata"]["finalizers"] = {"example.com/hold"};
  ASSERT_EQ(Send(*client_, "POST", configmaps_, object).status, 201);
  ASSERT_EQ(Send(*client_, "DELETE", configmaps_ + "/held").status, 200);
  Reply reply = Send(*client_, "PATCH", configmaps_ + "/held",
                     Json{{"metadata", {{"finalizers", {"example.com/hold", "example.com/more"}}}}},
                     "application/merge-patch+json");
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(reply.json["details"]["causes"][0]["field"], "metadata.finalizers");
  EXPECT_THAT(reply.body,
              HasSubstr("no new finalizers can be added if the object is being deleted"));
  // Removing the last finalizer still finishes the deletion.
  reply = Send(*client_, "PATCH", configmaps_ + "/held",
               Json{{"metadata", {{"finalizers", nullptr}}}}, "application/merge-patch+json");
  EXPECT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(Send(*client_, "GET", configmaps_ + "/held").status, 404);
}

Json EventsV1(const std::string& name) {
  return {{"apiVersion", "events.k8s.io/v1"},
          {"kind", "Event"},
          {"metadata", {{"name", name}}},
          {"eventTime", "2026-01-02T03:04:05.000006Z"},
          {"reportingController", "gpupool.dev/operator"},
          {"reportingInstance", "operator-0"},
          {"action", "Admit"},
          {"reason", "Admitted"},
          {"type", "Normal"},
          {"note", "job admitted"},
          {"regarding",
           {{"apiVersion", "v1"}, {"kind", "Pod"}, {"namespace", "default"}, {"name", "p"}}}};
}

TEST_F(FidelityTest, EventsApiRequiresEventTimeReportingFieldsAndAction) {
  const std::string path = "/apis/events.k8s.io/v1/namespaces/default/events";
  EXPECT_EQ(Send(*client_, "POST", path, EventsV1("complete")).status, 201);
  for (const char* field : {"eventTime", "reportingController", "reportingInstance", "action"}) {
    std::string name = std::string("no-") + field;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    Json event = EventsV1(name);
    event.erase(field);
    const Reply reply = Send(*client_, "POST", path, event);
    EXPECT_EQ(reply.status, 422) << field << ": " << reply.body;
    EXPECT_THAT(CauseFields(reply.json), ::testing::Contains(field)) << reply.body;
  }
}

TEST_F(FidelityTest, CoreEventNamespaceMustMatchItsInvolvedObject) {
  const Json event = {{"apiVersion", "v1"},
                      {"kind", "Event"},
                      {"metadata", {{"name", "elsewhere"}}},
                      {"reason", "Test"},
                      {"message", "m"},
                      {"involvedObject", {{"kind", "Pod"}, {"namespace", "other"}, {"name", "p"}}}};
  const Reply reply = Send(*client_, "POST", "/api/v1/namespaces/default/events", event);
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(CauseFields(reply.json), std::vector<std::string>{"involvedObject.namespace"});
}

TEST_F(FidelityTest, BothEventApisShareOneStorage) {
  ASSERT_EQ(Send(*client_, "POST", "/apis/events.k8s.io/v1/namespaces/default/events",
                 EventsV1("from-v1"))
                .status,
            201);
  Reply core = Send(*client_, "GET", "/api/v1/namespaces/default/events/from-v1");
  ASSERT_EQ(core.status, 200) << core.body;
  EXPECT_EQ(core.json["apiVersion"], "v1");
  EXPECT_EQ(core.json["message"], "job admitted");
  EXPECT_EQ(core.json["involvedObject"]["name"], "p");
  EXPECT_EQ(core.json["reportingComponent"], "gpupool.dev/operator");
  EXPECT_FALSE(core.json.contains("note"));
  const Json legacy = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"name", "from-core"}}},
      {"reason", "Old"},
      {"message", "written the old way"},
      {"count", 3},
      {"involvedObject", {{"kind", "Pod"}, {"namespace", "default"}, {"name", "q"}}}};
  ASSERT_EQ(Send(*client_, "POST", "/api/v1/namespaces/default/events", legacy).status, 201);
  const std::string v1 = "/apis/events.k8s.io/v1/namespaces/default/events";
  Reply modern = Send(*client_, "GET", v1 + "/from-core");
  ASSERT_EQ(modern.status, 200) << modern.body;
  EXPECT_EQ(modern.json["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(modern.json["note"], "written the old way");
  EXPECT_EQ(modern.json["regarding"]["name"], "q");
  EXPECT_EQ(modern.json["deprecatedCount"], 3);
  const Reply listed = Send(*client_, "GET", v1 + "?fieldSelector=regarding.name%3Dq");
  ASSERT_EQ(listed.status, 200) << listed.body;
  ASSERT_EQ(listed.json["items"].size(), 1u);
  EXPECT_EQ(listed.json["items"][0]["note"], "written the old way");
  // A patch through events.k8s.io uses its field names.
  Reply patched = Send(*client_, "PATCH", v1 + "/from-core", Json{{"note", "patched"}},
                       "application/merge-patch+json");
  EXPECT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(Send(*client_, "GET", "/api/v1/namespaces/default/events/from-core").json["message"],
            "patched");
}

Json Lease(const Json& spec) {
  return {{"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", {{"name", "leader"}}},
          {"spec", spec}};
}

TEST_F(FidelityTest, LeaseTimesAreMicroTimesAndDurationsPositive) {
  const std::string path = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
  Reply reply = Send(*client_, "POST", path, Lease({{"renewTime", "2026-01-02T03:04:05Z"}}));
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_EQ(reply.json["reason"], "BadRequest");
  reply = Send(*client_, "POST", path, Lease({{"acquireTime", "2026-01-02T03:04:05.123Z"}}));
  EXPECT_EQ(reply.status, 400) << reply.body;
  reply = Send(*client_, "POST", path, Lease({{"leaseDurationSeconds", 0}}));
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(CauseFields(reply.json), std::vector<std::string>{"spec.leaseDurationSeconds"});
  reply = Send(*client_, "POST", path,
               Lease({{"holderIdentity", "a"},
                      {"leaseDurationSeconds", 15},
                      {"renewTime", "2026-01-02T03:04:05.123456Z"}}));
  EXPECT_EQ(reply.status, 201) << reply.body;
  reply = Send(*client_, "PATCH", path + "/leader", Json{{"spec", {{"leaseDurationSeconds", -1}}}},
               "application/merge-patch+json");
  EXPECT_EQ(reply.status, 422) << reply.body;
}

TEST_F(FidelityTest, EvictionMustNameThePodOfItsUrl) {
  const Json pod = {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata", {{"name", "keep"}}},
                    {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
  ASSERT_EQ(Send(*client_, "POST", "/api/v1/namespaces/default/pods", pod).status, 201);
  const Json eviction = {
      {"apiVersion", "policy/v1"}, {"kind", "Eviction"}, {"metadata", {{"name", "another"}}}};
  const Reply reply =
      Send(*client_, "POST", "/api/v1/namespaces/default/pods/keep/eviction", eviction);
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("name in URL does not match name in Eviction object"));
  EXPECT_EQ(Send(*client_, "GET", "/api/v1/namespaces/default/pods/keep").status, 200);
}

TEST_F(FidelityTest, DeleteAnswersWithAStatusUnlessTheObjectStays) {
  const Reply created = Send(*client_, "POST", configmaps_, ConfigMapJson("gone"));
  ASSERT_EQ(created.status, 201);
  Reply reply = Send(*client_, "DELETE", configmaps_ + "/gone");
  EXPECT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json["kind"], "Status");
  EXPECT_EQ(reply.json["status"], "Success");
  EXPECT_EQ(reply.json["details"]["name"], "gone");
  EXPECT_EQ(reply.json["details"]["kind"], "configmaps");
  EXPECT_EQ(reply.json["details"]["uid"], created.json["metadata"]["uid"]);
  Json held = ConfigMapJson("held");
  held["metadata"]["finalizers"] = {"example.com/hold"};
  ASSERT_EQ(Send(*client_, "POST", configmaps_, held).status, 201);
  reply = Send(*client_, "DELETE", configmaps_ + "/held");
  EXPECT_EQ(reply.json["kind"], "ConfigMap") << reply.body;
  EXPECT_TRUE(reply.json["metadata"].contains("deletionTimestamp"));
  // Pods answer with the object, as their real storage does.
  const Json pod = {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata", {{"name", "p"}}},
                    {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
  ASSERT_EQ(Send(*client_, "POST", "/api/v1/namespaces/default/pods", pod).status, 201);
  reply = Send(*client_, "DELETE", "/api/v1/namespaces/default/pods/p");
  EXPECT_EQ(reply.json["kind"], "Pod") << reply.body;
}

TEST_F(FidelityTest, DryRunOtherThanAllIsInvalid) {
  Reply reply = Send(*client_, "POST", configmaps_ + "?dryRun=bogus", ConfigMapJson("x"));
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(reply.json["details"]["kind"], "CreateOptions");
  EXPECT_EQ(CauseFields(reply.json), std::vector<std::string>{"dryRun"});
  EXPECT_EQ(Send(*client_, "POST", configmaps_ + "?dryRun=All", ConfigMapJson("x")).status, 201);
  EXPECT_EQ(Send(*client_, "GET", configmaps_ + "/x").status, 404);
  ASSERT_EQ(Send(*client_, "POST", configmaps_, ConfigMapJson("y")).status, 201);
  reply = Send(*client_, "PATCH", configmaps_ + "/y?dryRun=yes", Json::object(),
               "application/merge-patch+json");
  EXPECT_EQ(reply.status, 422) << reply.body;
  reply = Send(*client_, "DELETE", configmaps_ + "/y?dryRun=1");
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(Send(*client_, "GET", configmaps_ + "/y").status, 200);
}

}  // namespace
}  // namespace gpupool::sandbox::testing
