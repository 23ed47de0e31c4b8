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

}  // namespace
}  // namespace gpupool::sandbox::testing
