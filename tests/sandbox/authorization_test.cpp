// RBAC decisions for service accounts, in-process on a Cluster holding the
// Roles, ClusterRoles and bindings.
#include "sandbox/authorization.h"

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
  EXPECT_TRUE(SubjectMatches(Subject(), kAccount));
  EXPECT_FALSE(SubjectMatches(Subject("other"), kAccount));
  EXPECT_FALSE(SubjectMatches(Subject("team", "someone"), kAccount));
  EXPECT_TRUE(
      SubjectMatches({{"kind", "User"}, {"name", "system:serviceaccount:team:worker"}}, kAccount));
  EXPECT_TRUE(
      SubjectMatches({{"kind", "Group"}, {"name", "system:serviceaccounts:team"}}, kAccount));
  EXPECT_FALSE(
      SubjectMatches({{"kind", "Group"}, {"name", "system:serviceaccounts:other"}}, kAccount));
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
