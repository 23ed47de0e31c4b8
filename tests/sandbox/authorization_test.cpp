// RBAC decisions for service accounts, in-process on a Cluster holding the
// Roles, ClusterRoles and bindings.
#include "sandbox/auth/authorization.h"

#include <gtest/gtest.h>

namespace gpupool::sandbox {
namespace {

const ServiceAccountName kAccount{"team", "worker"};

Json Subject(const std::string& ns = "team", const std::string& name = "worker") {
  return {{"kind", "ServiceAccount"}, {"name", name}, {"namespace", ns}};
}

class AuthorizationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"team", "other"}) {
      Create("", "namespaces", "", {{"metadata", {{"name", name}}}});
    }
  }
  void Create(const std::string& group, const std::string& plural, const std::string& ns,
              Json object) {
    WriteOptions options;
    cluster_.Create(*cluster_.Resource(group, "v1", plural), ns, std::move(object), options);
  }
  void Role(const std::string& kind, const std::string& ns, const std::string& name, Json rules) {
    Create(kRbac, kind == "Role" ? "roles" : "clusterroles", ns,
           {{"metadata", {{"name", name}}}, {"rules", std::move(rules)}});
  }
  void Bind(const std::string& ns, const std::string& name, const std::string& role_kind,
            const std::string& role, Json subject = Subject()) {
    Json binding = {{"metadata", {{"name", name}}},
                    {"roleRef", {{"apiGroup", kRbac}, {"kind", role_kind}, {"name", role}}},
                    {"subjects", Json::array({std::move(subject)})}};
    Create(kRbac, ns.empty() ? "clusterrolebindings" : "rolebindings", ns, std::move(binding));
  }
  bool Allows(const RequestAttributes& request) { return authorizer_.Allows(kAccount, request); }

  static constexpr char kRbac[] = "rbac.authorization.k8s.io";
  Cluster cluster_{ClusterConfig{1000}};
  Authorizer authorizer_{cluster_};
};

Json Rule(Json groups, Json resources, Json verbs, Json names = nullptr) {
  Json rule = {{"apiGroups", groups}, {"resources", resources}, {"verbs", verbs}};
  if (!names.is_null()) rule["resourceNames"] = names;
  return rule;
}

TEST(RuleAllows, MatchesVerbGroupResourceSubresourceAndName) {
  const Json pods = Rule({""}, {"pods"}, {"list", "watch"});
  EXPECT_TRUE(RuleAllows(pods, {"list", "", "pods", "", "team", ""}));
  EXPECT_TRUE(RuleAllows(pods, {"watch", "", "pods", "", "", ""}));
  EXPECT_FALSE(RuleAllows(pods, {"get", "", "pods", "", "team", "p"}));
  EXPECT_FALSE(RuleAllows(pods, {"list", "apps", "pods", "", "team", ""}));
  EXPECT_FALSE(RuleAllows(pods, {"list", "", "services", "", "team", ""}));
  // A subresource is granted only by its own name.
  EXPECT_FALSE(RuleAllows(pods, {"list", "", "pods", "log", "team", "p"}));
  const Json eviction = Rule({""}, {"pods/eviction"}, {"create"});
  EXPECT_TRUE(RuleAllows(eviction, {"create", "", "pods", "eviction", "team", "p"}));
  EXPECT_FALSE(RuleAllows(eviction, {"create", "", "pods", "", "team", ""}));
  const Json lease = Rule({"coordination.k8s.io"}, {"leases"}, {"get", "update"}, {"mine"});
  EXPECT_TRUE(RuleAllows(lease, {"get", "coordination.k8s.io", "leases", "", "team", "mine"}));
  EXPECT_FALSE(RuleAllows(lease, {"get", "coordination.k8s.io", "leases", "", "team", "theirs"}));
  // resourceNames cannot grant what names no object.
  EXPECT_FALSE(RuleAllows(lease, {"update", "coordination.k8s.io", "leases", "", "team", ""}));
}

TEST(RuleAllows, HonoursWildcards) {
  EXPECT_TRUE(
      RuleAllows(Rule({"*"}, {"*"}, {"*"}), {"delete", "apps", "deployments", "", "", "d"}));
  EXPECT_TRUE(RuleAllows(Rule({"gpupool.dev"}, {"*/status"}, {"patch"}),
                         {"patch", "gpupool.dev", "trainingjobs", "status", "team", "j"}));
  EXPECT_FALSE(RuleAllows(Rule({"gpupool.dev"}, {"*/status"}, {"patch"}),
                          {"patch", "gpupool.dev", "trainingjobs", "", "team", "j"}));
}

TEST(SubjectMatches, NamesTheAccountItsUserOrItsGroups) {
  const UserInfo account = kAccount.Info();
  EXPECT_TRUE(SubjectMatches(Subject(), account));
  EXPECT_FALSE(SubjectMatches(Subject("other"), account));
  EXPECT_FALSE(SubjectMatches(Subject("team", "someone"), account));
  EXPECT_TRUE(
      SubjectMatches({{"kind", "User"}, {"name", "system:serviceaccount:team:worker"}}, account));
  EXPECT_TRUE(
      SubjectMatches({{"kind", "Group"}, {"name", "system:serviceaccounts:team"}}, account));
  EXPECT_FALSE(
      SubjectMatches({{"kind", "Group"}, {"name", "system:serviceaccounts:other"}}, account));
}

// A ServiceAccount subject is matched by the user name alone: a review naming
// the account's user without its groups is still bound, and a subject without
// a namespace takes its binding's.
TEST(SubjectMatches, ReadsAServiceAccountSubjectAsItsUserName) {
  const UserInfo bare{"system:serviceaccount:team:worker", "", {}};
  EXPECT_TRUE(SubjectMatches(Subject(), bare));
  EXPECT_FALSE(SubjectMatches({{"kind", "Group"}, {"name", "system:serviceaccounts"}}, bare));
  const Json unqualified = {{"kind", "ServiceAccount"}, {"name", "worker"}};
  EXPECT_TRUE(SubjectMatches(unqualified, bare, "team"));
  EXPECT_FALSE(SubjectMatches(unqualified, bare, "other"));
  EXPECT_FALSE(SubjectMatches(unqualified, bare));
}

TEST(SubjectMatches, NamesOtherUsersByNameAndGroupsTheyAreGiven) {
  const UserInfo alice{"alice", "", {"team", "system:authenticated"}};
  EXPECT_TRUE(SubjectMatches({{"kind", "User"}, {"name", "alice"}}, alice));
  EXPECT_FALSE(SubjectMatches({{"kind", "User"}, {"name", "bob"}}, alice));
  EXPECT_TRUE(SubjectMatches({{"kind", "Group"}, {"name", "team"}}, alice));
  EXPECT_FALSE(SubjectMatches({{"kind", "Group"}, {"name", "system:serviceaccounts"}}, alice));
  EXPECT_FALSE(SubjectMatches(Subject(), alice));
}

Json NonResourceRule(Json urls, Json verbs) {
  return {{"nonResourceURLs", std::move(urls)}, {"verbs", std::move(verbs)}};
}

TEST(RuleAllows, MatchesNonResourceUrlsExactlyOrByATrailingStar) {
  const auto get = [](const std::string& path) {
    return RequestAttributes::NonResource("get", path);
  };
  const Json metrics = NonResourceRule({"/metrics"}, {"get"});
  EXPECT_TRUE(RuleAllows(metrics, get("/metrics")));
  EXPECT_FALSE(RuleAllows(metrics, get("/metrics/cadvisor")));
  EXPECT_FALSE(RuleAllows(metrics, get("/metric")));
  EXPECT_FALSE(RuleAllows(metrics, RequestAttributes::NonResource("post", "/metrics")));
  const Json prefix = NonResourceRule({"/met*"}, {"get"});
  EXPECT_TRUE(RuleAllows(prefix, get("/metrics")));
  EXPECT_TRUE(RuleAllows(prefix, get("/met")));
  EXPECT_FALSE(RuleAllows(prefix, get("/healthz")));
  EXPECT_TRUE(
      RuleAllows(NonResourceRule({"*"}, {"*"}), RequestAttributes::NonResource("put", "/x")));
  EXPECT_TRUE(RuleAllows(NonResourceRule({"/healthz", "/metrics"}, {"*"}), get("/metrics")));
  // Resource rules grant no path, and path rules no resource.
  EXPECT_FALSE(RuleAllows(Rule({"*"}, {"*"}, {"*"}), get("/metrics")));
  EXPECT_FALSE(RuleAllows(NonResourceRule({"*"}, {"*"}), {"get", "", "pods", "", "team", "p"}));
}

TEST(ForbiddenFor, HasTheRealServersMessage) {
  auto error =
      ForbiddenFor(kAccount, {"patch", "gpupool.dev", "trainingjobs", "status", "team", "j"});
  EXPECT_EQ(error.code, 403);
  EXPECT_EQ(error.reason, "Forbidden");
  EXPECT_STREQ(error.what(),
               "trainingjobs.gpupool.dev \"j\" is forbidden: User "
               "\"system:serviceaccount:team:worker\" cannot patch resource "
               "\"trainingjobs/status\" in API group \"gpupool.dev\" in the namespace \"team\"");
  EXPECT_EQ(error.details["kind"], "trainingjobs");
  EXPECT_EQ(error.details["group"], "gpupool.dev");
  error = ForbiddenFor(kAccount, {"list", "", "nodes", "", "", ""});
  EXPECT_STREQ(error.what(),
               "nodes is forbidden: User \"system:serviceaccount:team:worker\" cannot list "
               "resource \"nodes\" in API group \"\" at the cluster scope");
}

TEST_F(AuthorizationTest, DeniesWithoutABinding) {
  Role("ClusterRole", "", "reader", {Rule({""}, {"pods"}, {"list"})});
  EXPECT_FALSE(Allows({"list", "", "pods", "", "team", ""}));
  Bind("", "someone-else", "ClusterRole", "reader", Subject("team", "someone"));
  EXPECT_FALSE(Allows({"list", "", "pods", "", "team", ""}));
}

TEST_F(AuthorizationTest, ClusterRoleBindingGrantsEverywhere) {
  Role("ClusterRole", "", "reader", {Rule({""}, {"pods", "nodes"}, {"list"})});
  Bind("", "reader", "ClusterRole", "reader");
  EXPECT_TRUE(Allows({"list", "", "pods", "", "team", ""}));
  EXPECT_TRUE(Allows({"list", "", "pods", "", "other", ""}));
  EXPECT_TRUE(Allows({"list", "", "pods", "", "", ""}));
  EXPECT_TRUE(Allows({"list", "", "nodes", "", "", ""}));
  EXPECT_FALSE(Allows({"delete", "", "pods", "", "team", "p"}));
}

TEST_F(AuthorizationTest, RoleBindingGrantsInItsNamespaceOnly) {
  Role("Role", "team", "leases", {Rule({"coordination.k8s.io"}, {"leases"}, {"create"})});
  Bind("team", "leases", "Role", "leases");
  EXPECT_TRUE(Allows({"create", "coordination.k8s.io", "leases", "", "team", ""}));
  EXPECT_FALSE(Allows({"create", "coordination.k8s.io", "leases", "", "other", ""}));
}

TEST_F(AuthorizationTest, ClusterRoleBoundByARoleBindingIsLimitedToTheNamespace) {
  Role("ClusterRole", "", "editor", {Rule({""}, {"configmaps"}, {"get", "list", "update"})});
  Bind("team", "editor", "ClusterRole", "editor");
  EXPECT_TRUE(Allows({"update", "", "configmaps", "", "team", "c"}));
  EXPECT_FALSE(Allows({"update", "", "configmaps", "", "other", "c"}));
  EXPECT_FALSE(Allows({"list", "", "configmaps", "", "", ""}));  // across namespaces
}

TEST_F(AuthorizationTest, BindingToAMissingRoleGrantsNothing) {
  Bind("", "dangling", "ClusterRole", "absent");
  Bind("team", "dangling", "Role", "absent");
  EXPECT_FALSE(Allows({"get", "", "pods", "", "team", "p"}));
}

TEST_F(AuthorizationTest, DecidesNonResourcePathsFromClusterRoleBindingsOnly) {
  Role("ClusterRole", "", "metrics-reader", {NonResourceRule({"/metrics"}, {"get"})});
  const UserInfo account = kAccount.Info();
  const auto metrics = RequestAttributes::NonResource("get", "/metrics");
  EXPECT_FALSE(authorizer_.Decide(account, metrics).allowed);
  Bind("team", "metrics-reader", "ClusterRole", "metrics-reader");
  EXPECT_FALSE(authorizer_.Decide(account, metrics).allowed);
  Bind("", "metrics-reader", "ClusterRole", "metrics-reader");
  const Decision decision = authorizer_.Decide(account, metrics);
  EXPECT_TRUE(decision.allowed);
  EXPECT_EQ(decision.reason,
            "RBAC: allowed by ClusterRoleBinding \"metrics-reader\" of ClusterRole "
            "\"metrics-reader\" to ServiceAccount \"worker/team\"");
}

TEST_F(AuthorizationTest, DecidesForUsersAndGroupsAsReviewsNameThem) {
  Role("ClusterRole", "", "metrics-reader", {NonResourceRule({"/metrics"}, {"get"})});
  Bind("", "monitoring", "ClusterRole", "metrics-reader",
       {{"kind", "Group"}, {"name", "monitoring"}});
  const auto metrics = RequestAttributes::NonResource("get", "/metrics");
  EXPECT_FALSE(authorizer_.Decide({"carol", "", {}}, metrics).allowed);
  const Decision decision = authorizer_.Decide({"carol", "", {"monitoring"}}, metrics);
  EXPECT_TRUE(decision.allowed);
  EXPECT_EQ(decision.reason,
            "RBAC: allowed by ClusterRoleBinding \"monitoring\" of ClusterRole "
            "\"metrics-reader\" to Group \"monitoring\"");
  Role("Role", "team", "pods", {Rule({""}, {"pods"}, {"get"})});
  Bind("team", "alice-pods", "Role", "pods", {{"kind", "User"}, {"name", "alice"}});
  EXPECT_EQ(authorizer_.Decide({"alice", "", {}}, {"get", "", "pods", "", "team", "p"}).reason,
            "RBAC: allowed by RoleBinding \"alice-pods/team\" of Role \"pods\" to User \"alice\"");
  // system:masters may do anything, before RBAC.
  EXPECT_TRUE(authorizer_.Decide({"root", "", {kMastersGroup}}, metrics).allowed);
}

TEST_F(AuthorizationTest, ADenialNamesTheMissingRolesOfBindingsToTheUser) {
  Bind("", "dangling", "ClusterRole", "absent");
  Bind("", "not-mine", "ClusterRole", "gone", Subject("team", "someone"));
  const Decision decision =
      authorizer_.Decide(kAccount.Info(), RequestAttributes::NonResource("get", "/metrics"));
  EXPECT_FALSE(decision.allowed);
  EXPECT_EQ(decision.reason, "RBAC: clusterrole.rbac.authorization.k8s.io \"absent\" not found");
  EXPECT_EQ(authorizer_.Decide({"nobody", "", {}}, {"get", "", "pods", "", "team", "p"}).reason,
            "");
}

TEST_F(AuthorizationTest, CheckThrowsTheForbiddenErrorAndCountsIt) {
  EXPECT_EQ(authorizer_.denials(), 0u);
  try {
    authorizer_.Check(kAccount, {"get", "", "secrets", "", "team", "s"});
    FAIL() << "not denied";
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 403);
    EXPECT_EQ(std::string(error.what()).rfind("secrets \"s\" is forbidden: User", 0), 0u);
  }
  EXPECT_EQ(authorizer_.denials(), 1u);
}

}  // namespace
}  // namespace gpupool::sandbox
