// TokenReview and SubjectAccessReview answers, in-process (the statuses and
// the checks of a spec) and on a real `gpupool sandbox` started without
// --authorize-service-accounts, where the reviews still read the stored RBAC.
#include "sandbox/auth/access_review.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fidelity_util.h"
#include "sandbox_process.h"

namespace gpupool::sandbox {
namespace {

using ::testing::ElementsAre;
using testing::SandboxProcess;
using testing::Send;

const TokenHolder kHolder{{"system:serviceaccount:team:worker", "u-1", {"system:authenticated"}},
                          {"https://kubernetes.default.svc", "metrics"}};

TEST(TokenReviewStatus, NamesTheHolderAndTheAudiencesBothShare) {
  EXPECT_EQ(TokenReviewStatus(kHolder, Json::object()),
            Json({{"authenticated", true},
                  {"user",
                   {{"username", "system:serviceaccount:team:worker"},
                    {"uid", "u-1"},
                    {"groups", {"system:authenticated"}}}},
                  {"audiences", {"https://kubernetes.default.svc"}}}));
  EXPECT_EQ(TokenReviewStatus(kHolder, {{"audiences", {"other", "metrics"}}})["audiences"],
            Json({"metrics"}));
}

TEST(TokenReviewStatus, AnUnknownOrMisdirectedTokenGetsAnEmptyUserAndAnError) {
  EXPECT_EQ(TokenReviewStatus(std::nullopt, Json::object()),
            Json({{"user", Json::object()}, {"error", "invalid bearer token"}}));
  EXPECT_EQ(TokenReviewStatus(kHolder, {{"audiences", {"a", "b"}}})["error"],
            "[invalid bearer token, token audiences [\"https://kubernetes.default.svc\" "
            "\"metrics\"] is invalid for the target audiences [\"a\" \"b\"]]");
  const TokenHolder admin{AdminUser(), {"https://kubernetes.default.svc"}, true};
  EXPECT_EQ(TokenReviewStatus(admin, {{"audiences", {"a"}}})["error"], "invalid bearer token");
  EXPECT_EQ(TokenReviewStatus(admin, Json::object())["user"]["username"], "kubernetes-admin");
}

TEST(ReviewedToken, IsRequired) {
  EXPECT_EQ(ReviewedToken({{"token", "t"}}), "t");
  try {
    ReviewedToken(Json::object());
    FAIL() << "accepted";
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 400);
    EXPECT_STREQ(error.what(), "token is required for TokenReview in authentication");
  }
}

std::vector<std::string> InvalidFields(const Json& spec, bool names_subject) {
  try {
    ValidateAccessReviewSpec(spec, names_subject);
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 422);
    EXPECT_FALSE(error.details.contains("kind"));
    std::vector<std::string> fields;
    for (const auto& cause : error.details["causes"]) fields.push_back(cause["field"]);
    return fields;
  }
  return {};
}

TEST(ValidateAccessReviewSpec, NeedsOneKindOfAttributesAndForOthersASubject) {
  const Json path = {{"path", "/metrics"}, {"verb", "get"}};
  EXPECT_THAT(InvalidFields({{"user", "u"}, {"nonResourceAttributes", path}}, true), ElementsAre());
  EXPECT_THAT(InvalidFields({{"groups", {"g"}}, {"resourceAttributes", path}}, true),
              ElementsAre());
  EXPECT_THAT(InvalidFields({{"user", "u"}, {"resourceAttributes", nullptr}}, true),
              ElementsAre("spec.resourceAttributes"));
  EXPECT_THAT(
      InvalidFields({{"user", "u"}, {"resourceAttributes", path}, {"nonResourceAttributes", path}},
                    true),
      ElementsAre("spec.nonResourceAttributes"));
  EXPECT_THAT(InvalidFields(Json::object(), true),
              ElementsAre("spec.resourceAttributes", "spec.user"));
  EXPECT_THAT(InvalidFields({{"nonResourceAttributes", path}}, false), ElementsAre());
}

TEST(ReviewedRequest, ReadsEitherKindOfAttributes) {
  const auto path =
      ReviewedRequest({{"nonResourceAttributes", {{"path", "/metrics"}, {"verb", "get"}}}});
  EXPECT_TRUE(path.non_resource);
  EXPECT_EQ(path.path, "/metrics");
  EXPECT_EQ(path.verb, "get");
  const auto pods = ReviewedRequest(
      {{"resourceAttributes", {{"verb", "list"}, {"resource", "pods"}, {"namespace", "team"}}}});
  EXPECT_FALSE(pods.non_resource);
  EXPECT_EQ(pods.resource, "pods");
  EXPECT_EQ(pods.ns, "team");
}

// The RBAC objects answer a SubjectAccessReview even where they are not
// enforced, and the admin token is reviewed as kubernetes-admin.
TEST(AccessReviewProcess, AnswersFromStoredRbacWithoutEnforcement) {
  SandboxProcess sandbox;
  auto result =
      sandbox.Kubectl("create clusterrole metrics --verb=get --non-resource-url=/metrics");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl(
      "create clusterrolebinding metrics --clusterrole=metrics --serviceaccount=default:scraper");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto client = sandbox.Http();
  Json review = {{"apiVersion", "authorization.k8s.io/v1"},
                 {"kind", "SubjectAccessReview"},
                 {"spec",
                  {{"user", "system:serviceaccount:default:scraper"},
                   {"nonResourceAttributes", {{"path", "/metrics"}, {"verb", "get"}}}}}};
  auto reply = Send(*client, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review);
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_EQ(reply.json["status"]["allowed"], true) << reply.body;
  review["spec"]["user"] = "system:serviceaccount:default:other";
  reply = Send(*client, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review);
  EXPECT_EQ(reply.json["status"], Json({{"allowed", false}})) << reply.body;

  const Json token_review = {{"apiVersion", "authentication.k8s.io/v1"},
                             {"kind", "TokenReview"},
                             {"spec", {{"token", sandbox.token()}}}};
  reply = Send(*client, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", token_review);
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_EQ(reply.json["status"]["user"]["username"], "kubernetes-admin") << reply.body;
  EXPECT_EQ(reply.json["status"]["authenticated"], true);
}

}  // namespace
}  // namespace gpupool::sandbox
