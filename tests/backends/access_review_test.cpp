// The reviews a controller makes to guard its /metrics endpoint, on every
// backend: TokenReview (whose token is this?) and SubjectAccessReview (may
// this user GET /metrics?), decided from ClusterRoles and their bindings, and
// refused (403) to a service account without RBAC's `create` on them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "fidelity_fixture.h"

namespace gpupool::backends::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kTokenReviews[] = "/apis/authentication.k8s.io/v1/tokenreviews";
constexpr char kAccessReviews[] = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
constexpr char kRbac[] = "/apis/rbac.authorization.k8s.io/v1/";

Json TokenReview(const std::string& token, const Json& audiences = nullptr) {
  Json review = {{"apiVersion", "authentication.k8s.io/v1"},
                 {"kind", "TokenReview"},
                 {"spec", {{"token", token}}}};
  if (!audiences.is_null()) review["spec"]["audiences"] = audiences;
  return review;
}

Json AccessReviewOf(const Json& spec) {
  return {
      {"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"}, {"spec", spec}};
}

Json MetricsAttributes(const std::string& verb = "get", const std::string& path = "/metrics") {
  return {{"path", path}, {"verb", verb}};
}

// Each test works in a namespace of its own (FidelityOnBackend) and names its
// cluster-wide objects after it; they are deleted after the test.
class AccessReview : public FidelityOnBackend {
 protected:
  void TearDown() override {
    if (client_) {
      for (const auto& path : cluster_objects_) Send(*client_, "DELETE", path);
    }
    FidelityOnBackend::TearDown();
  }

  std::string User(const std::string& account) const {
    return "system:serviceaccount:" + ns_ + ":" + account;
  }
  // The groups every service account of the test's namespace is in.
  Json AccountGroups() const {
    return {"system:serviceaccounts", "system:serviceaccounts:" + ns_, "system:authenticated"};
  }
  // A SubjectAccessReview's spec as a controller sends it for a token's holder.
  Json SpecFor(const std::string& account, const Json& attributes) const {
    return {{"user", User(account)},
            {"groups", AccountGroups()},
            {"uid", "uid-of-" + account},
            {"nonResourceAttributes", attributes}};
  }

  // Creates the account and returns a fresh token of it (`kubectl create token`).
  std::string TokenOf(const std::string& account) {
    const Json object = {
        {"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", account}}}};
    const Reply created = Send(*client_, "POST", CorePath("serviceaccounts"), object);
    EXPECT_EQ(created.status, 201) << created.body;
    const auto token = cluster_->Kubectl("create token " + account + " -n " + ns_);
    EXPECT_EQ(token.exit_code, 0) << token.output;
    return token.output.substr(0, token.output.find_last_not_of('\n') + 1);
  }

  // A ClusterRole named `role` of the one rule and a ClusterRoleBinding of the
  // same name to `subject`, both named after the test.
  void BindClusterRole(const std::string& role, const Json& rule, const Json& subject) {
    const std::string name = ns_ + "-" + role;
    Create("clusterroles", {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                            {"kind", "ClusterRole"},
                            {"metadata", {{"name", name}}},
                            {"rules", {rule}}});
    Create("clusterrolebindings",
           {{"apiVersion", "rbac.authorization.k8s.io/v1"},
            {"kind", "ClusterRoleBinding"},
            {"metadata", {{"name", name}}},
            {"roleRef",
             {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", name}}},
            {"subjects", {subject}}});
  }
  void Create(const std::string& plural, const Json& object) {
    const Reply created = Send(*client_, "POST", kRbac + plural, object);
    ASSERT_EQ(created.status, 201) << created.body;
    cluster_objects_.push_back(kRbac + plural + "/" +
                               object["metadata"]["name"].get<std::string>());
  }
  Json ServiceAccountSubject(const std::string& account) const {
    return {{"kind", "ServiceAccount"}, {"name", account}, {"namespace", ns_}};
  }

  // Posts a review as `token` (the admin when empty).
  Reply Post(const std::string& path, const Json& review, const std::string& token = "") {
    auto client = cluster_->Http();
    if (!token.empty()) client->set_bearer_token_auth(token.c_str());
    return Send(*client, "POST", path, review);
  }
  // The review's answer once it allows: a real server's RBAC reads bindings
  // from a cache that takes a moment to see new ones.
  Reply PostUntilAllowed(const Json& review) {
    Reply reply;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    do {
      reply = Post(kAccessReviews, review);
      if (reply.json["status"].value("allowed", false)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } while (std::chrono::steady_clock::now() < deadline);
    return reply;
  }
  // The status of a request as `token`, once it is other than 403 or after 10 s.
  int StatusOnceGranted(const std::string& path, const Json& review, const std::string& token) {
    Reply reply;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    do {
      reply = Post(path, review, token);
      if (reply.status != 403) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } while (std::chrono::steady_clock::now() < deadline);
    return reply.status;
  }

  std::vector<std::string> cluster_objects_;
};

TEST_P(AccessReview, ATokenReviewNamesTheAccountATokenWasIssuedFor) {
  const std::string token = TokenOf("reader");
  const Reply account = Send(*client_, "GET", CorePath("serviceaccounts/reader"));
  ASSERT_EQ(account.status, 200) << account.body;

  const Reply reply = Post(kTokenReviews, TokenReview(token));
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_EQ(reply.json["kind"], "TokenReview");
  EXPECT_EQ(reply.json["spec"]["token"], token);
  const Json& status = reply.json["status"];
  EXPECT_EQ(status["authenticated"], true) << reply.body;
  EXPECT_EQ(status["user"]["username"], User("reader"));
  EXPECT_EQ(status["user"]["uid"], account.json["metadata"]["uid"]);
  EXPECT_EQ(status["user"]["groups"], AccountGroups());
  EXPECT_EQ(status["audiences"], Json::array({"https://kubernetes.default.svc"}));
  EXPECT_FALSE(status.contains("error")) << reply.body;

  // Among the audiences a review names, the token's count.
  const Reply shared =
      Post(kTokenReviews, TokenReview(token, {"other", "https://kubernetes.default.svc"}));
  ASSERT_EQ(shared.status, 201) << shared.body;
  EXPECT_EQ(shared.json["status"]["authenticated"], true) << shared.body;
  EXPECT_EQ(shared.json["status"]["audiences"], Json::array({"https://kubernetes.default.svc"}));
  // A token meant for others is not authenticated, and the error says why.
  const Reply other = Post(kTokenReviews, TokenReview(token, {"other"}));
  ASSERT_EQ(other.status, 201) << other.body;
  EXPECT_EQ(other.json["status"],
            Json({{"user", Json::object()},
                  {"error",
                   "[invalid bearer token, token audiences [\"https://kubernetes.default.svc\"] is "
                   "invalid for the target audiences [\"other\"]]"}}));
}

TEST_P(AccessReview, AnUnknownTokenIsNotAuthenticatedAndAnEmptyOneIsABadRequest) {
  const Reply reply = Post(kTokenReviews, TokenReview("not-a-token-of-this-cluster"));
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_EQ(reply.json["status"],
            Json({{"user", Json::object()}, {"error", "invalid bearer token"}}));

  const Reply empty = Post(kTokenReviews, TokenReview(""));
  EXPECT_EQ(empty.status, 400) << empty.body;
  EXPECT_EQ(empty.json["message"], "token is required for TokenReview in authentication");
}

TEST_P(AccessReview, NonResourceRulesDecideWhoMayGetMetrics) {
  BindClusterRole("metrics", {{"nonResourceURLs", {"/metrics"}}, {"verbs", {"get"}}},
                  ServiceAccountSubject("scraper"));
  const Reply allowed = PostUntilAllowed(AccessReviewOf(SpecFor("scraper", MetricsAttributes())));
  ASSERT_EQ(allowed.status, 201) << allowed.body;
  EXPECT_EQ(allowed.json["kind"], "SubjectAccessReview");
  EXPECT_EQ(allowed.json["spec"]["user"], User("scraper"));
  EXPECT_EQ(allowed.json["status"],
            Json({{"allowed", true},
                  {"reason", "RBAC: allowed by ClusterRoleBinding \"" + ns_ +
                                 "-metrics\" of ClusterRole \"" + ns_ +
                                 "-metrics\" to ServiceAccount \"scraper/" + ns_ + "\""}}));

  // Denials carry no reason, and say nothing of `denied`.
  const Reply stranger =
      Post(kAccessReviews, AccessReviewOf(SpecFor("stranger", MetricsAttributes())));
  ASSERT_EQ(stranger.status, 201) << stranger.body;
  EXPECT_EQ(stranger.json["status"], Json({{"allowed", false}}));
  const Reply post =
      Post(kAccessReviews, AccessReviewOf(SpecFor("scraper", MetricsAttributes("post"))));
  ASSERT_EQ(post.status, 201) << post.body;
  EXPECT_EQ(post.json["status"], Json({{"allowed", false}}));
  const Reply deeper = Post(
      kAccessReviews, AccessReviewOf(SpecFor("scraper", MetricsAttributes("get", "/metrics/x"))));
  EXPECT_EQ(deeper.json["status"], Json({{"allowed", false}}));
}

TEST_P(AccessReview, ATrailingStarMatchesPathsByPrefixForAGroup) {
  const Json group = {{"kind", "Group"},
                      {"apiGroup", "rbac.authorization.k8s.io"},
                      {"name", "system:serviceaccounts:" + ns_}};
  BindClusterRole("prefix", {{"nonResourceURLs", {"/met*"}}, {"verbs", {"get"}}}, group);
  const Reply allowed =
      PostUntilAllowed(AccessReviewOf(SpecFor("anyone", MetricsAttributes("get", "/metrics/x"))));
  EXPECT_EQ(allowed.json["status"], Json({{"allowed", true},
                                          {"reason", "RBAC: allowed by ClusterRoleBinding \"" +
                                                         ns_ + "-prefix\" of ClusterRole \"" + ns_ +
                                                         "-prefix\" to Group "
                                                         "\"system:serviceaccounts:" +
                                                         ns_ + "\""}}))
      << allowed.body;
  // A group is matched only when the review names it.
  Json spec = SpecFor("anyone", MetricsAttributes());
  spec.erase("groups");
  const Reply without_groups = Post(kAccessReviews, AccessReviewOf(spec));
  EXPECT_EQ(without_groups.json["status"], Json({{"allowed", false}})) << without_groups.body;
  const Reply post =
      Post(kAccessReviews, AccessReviewOf(SpecFor("anyone", MetricsAttributes("post"))));
  EXPECT_EQ(post.json["status"], Json({{"allowed", false}})) << post.body;
}

TEST_P(AccessReview, UsersAreDecidedByUserSubjectsAndResourceRules) {
  const std::string alice = ns_ + "-alice";
  BindClusterRole("alice", {{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"*"}}},
                  {{"kind", "User"}, {"apiGroup", "rbac.authorization.k8s.io"}, {"name", alice}});
  const Json pods = {{"verb", "list"}, {"resource", "pods"}, {"namespace", ns_}};
  const Reply allowed =
      PostUntilAllowed(AccessReviewOf({{"user", alice}, {"resourceAttributes", pods}}));
  EXPECT_EQ(allowed.json["status"], Json({{"allowed", true},
                                          {"reason", "RBAC: allowed by ClusterRoleBinding \"" +
                                                         ns_ + "-alice\" of ClusterRole \"" + ns_ +
                                                         "-alice\" to User \"" + alice + "\""}}))
      << allowed.body;
  Json secrets = pods;
  secrets["resource"] = "secrets";
  const Reply denied =
      Post(kAccessReviews, AccessReviewOf({{"user", alice}, {"resourceAttributes", secrets}}));
  EXPECT_EQ(denied.json["status"], Json({{"allowed", false}})) << denied.body;
  const Reply bob =
      Post(kAccessReviews, AccessReviewOf({{"user", ns_ + "-bob"}, {"resourceAttributes", pods}}));
  EXPECT_EQ(bob.json["status"], Json({{"allowed", false}})) << bob.body;
}

TEST_P(AccessReview, ASpecNamesExactlyOneKindOfAttributesAndASubject) {
  const Reply neither = Post(kAccessReviews, AccessReviewOf({{"user", "someone"}}));
  EXPECT_EQ(neither.status, 422) << neither.body;
  EXPECT_EQ(neither.json["reason"], "Invalid");
  EXPECT_THAT(CauseFields(neither.json), ElementsAre("spec.resourceAttributes"));
  EXPECT_EQ(neither.json["message"],
            ".authorization.k8s.io \"\" is invalid: spec.resourceAttributes: Invalid value: "
            "\"null\": exactly one of nonResourceAttributes or resourceAttributes must be "
            "specified");
  EXPECT_EQ(neither.json["details"], Json({{"group", "authorization.k8s.io"},
                                           {"causes", neither.json["details"]["causes"]}}));

  const Reply both =
      Post(kAccessReviews,
           AccessReviewOf({{"user", "someone"},
                           {"nonResourceAttributes", MetricsAttributes()},
                           {"resourceAttributes", {{"verb", "get"}, {"resource", "pods"}}}}));
  EXPECT_EQ(both.status, 422) << both.body;
  EXPECT_THAT(CauseFields(both.json), ElementsAre("spec.nonResourceAttributes"));
  EXPECT_EQ(both.json["message"],
            ".authorization.k8s.io \"\" is invalid: spec.nonResourceAttributes: Invalid value: "
            "authorization.NonResourceAttributes{Path:\"/metrics\", Verb:\"get\"}: cannot be "
            "specified in combination with resourceAttributes");

  const Reply nobody =
      Post(kAccessReviews, AccessReviewOf({{"nonResourceAttributes", MetricsAttributes()}}));
  EXPECT_EQ(nobody.status, 422) << nobody.body;
  EXPECT_THAT(CauseFields(nobody.json), ElementsAre("spec.user"));
  EXPECT_THAT(nobody.json.value("message", ""),
              HasSubstr("spec.user: Invalid value: \"\": at least one of user or group must be "
                        "specified"));
}

TEST_P(AccessReview, ReviewsNeedRbacCreateOnThem) {
  const std::string token = TokenOf("guard");
  const Reply token_review = Post(kTokenReviews, TokenReview(token), token);
  EXPECT_EQ(token_review.status, 403) << token_review.body;
  EXPECT_EQ(token_review.json["reason"], "Forbidden");
  EXPECT_EQ(token_review.json["message"],
            "tokenreviews.authentication.k8s.io is forbidden: User \"" + User("guard") +
                "\" cannot create resource \"tokenreviews\" in API group "
                "\"authentication.k8s.io\" at the cluster scope");
  const Json access_review = AccessReviewOf(SpecFor("guard", MetricsAttributes()));
  const Reply denied = Post(kAccessReviews, access_review, token);
  EXPECT_EQ(denied.status, 403) << denied.body;
  EXPECT_EQ(denied.json["message"],
            "subjectaccessreviews.authorization.k8s.io is forbidden: User \"" + User("guard") +
                "\" cannot create resource \"subjectaccessreviews\" in API group "
                "\"authorization.k8s.io\" at the cluster scope");

  // What the system:auth-delegator role grants a controller that guards its endpoints.
  BindClusterRole("delegator",
                  {{"apiGroups", {"authentication.k8s.io", "authorization.k8s.io"}},
                   {"resources", {"tokenreviews", "subjectaccessreviews"}},
                   {"verbs", {"create"}}},
                  ServiceAccountSubject("guard"));
  EXPECT_EQ(StatusOnceGranted(kTokenReviews, TokenReview(token), token), 201);
  EXPECT_EQ(StatusOnceGranted(kAccessReviews, access_review, token), 201);
}

INSTANTIATE_TEST_SUITE_P(All, AccessReview, ::testing::ValuesIn(Backends()), BackendParamName);

}  // namespace
}  // namespace gpupool::backends::testing
