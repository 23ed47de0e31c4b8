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

}  // namespace
}  // namespace gpupool::sandbox::testing
