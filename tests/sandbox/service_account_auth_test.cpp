// --authorize-service-accounts on a real `gpupool sandbox`: tokens from
// `kubectl create token`, RBAC answers to them, the admin token unchanged.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sandbox_process.h"

namespace gpupool::sandbox::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kFlag[] = "--authorize-service-accounts";

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// kubectl apply of `yaml`.
void Apply(const SandboxProcess& sandbox, const std::string& yaml) {
  const auto result = sandbox.Kubectl("apply -f " + sandbox.WriteFile("applied.yaml", yaml));
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

constexpr char kWorker[] =
    "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: worker, namespace: default}\n";

// Creates the ServiceAccount default/worker and returns a token for it.
std::string WorkerToken(const SandboxProcess& sandbox) {
  Apply(sandbox, kWorker);
  auto result = sandbox.Kubectl("get serviceaccount worker -n default");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl("create token worker -n default");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return Trimmed(result.output);
}

std::unique_ptr<httplib::Client> As(const SandboxProcess& sandbox, const std::string& token) {
  auto client = sandbox.Http(false);
  client->set_bearer_token_auth(token.c_str());
  return client;
}

int Status(const httplib::Result& result) { return result ? result->status : -1; }

TEST(ServiceAccountAuth, KubectlCreateTokenIssuesATokenThatRbacGoverns) {
  SandboxProcess sandbox({kFlag});
  const std::string token = WorkerToken(sandbox);
  ASSERT_THAT(token, StartsWith("sandbox-sa."));
  auto client = As(sandbox, token);
  // Discovery is open to every authenticated identity.
  for (const char* path : {"/api", "/apis", "/version", "/api/v1", "/openapi/v3"}) {
    EXPECT_EQ(Status(client->Get(path)), 200) << path;
  }
  auto response = client->Get("/api/v1/namespaces/default/pods");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 403);
  const Json status = Json::parse(response->body);
  EXPECT_EQ(status["reason"], "Forbidden");
  EXPECT_EQ(status["message"],
            "pods is forbidden: User \"system:serviceaccount:default:worker\" cannot list "
            "resource \"pods\" in API group \"\" in the namespace \"default\"");
  // A Role and RoleBinding grant the list, in that namespace only.
  Apply(sandbox, R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-reader, namespace: default}
rules: [{apiGroups: [""], resources: [pods], verbs: [list, watch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: pod-reader, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
subjects: [{kind: ServiceAccount, name: worker, namespace: default}]
)");
  EXPECT_EQ(Status(client->Get("/api/v1/namespaces/default/pods")), 200);
  EXPECT_EQ(Status(client->Get("/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1")),
            200);
  EXPECT_EQ(Status(client->Get("/api/v1/namespaces/kube-system/pods")), 403);
  EXPECT_EQ(Status(client->Get("/api/v1/namespaces/default/pods/p")), 403);  // get, not granted
  EXPECT_EQ(Status(client->Get("/api/v1/nodes")), 403);
  // kubectl as the account sees the same answer.
  auto result = sandbox.Kubectl("--token " + token + " get nodes");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.output,
              HasSubstr("Error from server (Forbidden): nodes is forbidden: User "
                        "\"system:serviceaccount:default:worker\" cannot list "
                        "resource \"nodes\" in API group \"\" at the cluster scope"));
  result = sandbox.Kubectl("--token " + token + " get pods -n default");
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

// The imperative commands send protobuf bodies; `auth can-i` and `auth whoami`
// review the caller itself, which every identity may do.
TEST(ServiceAccountAuth, KubectlCreatesAccountsAndRolesAndAnswersCanIAndWhoAmI) {
  SandboxProcess sandbox({kFlag});
  ASSERT_EQ(sandbox.Kubectl("create serviceaccount bot -n default").exit_code, 0);
  const std::string token = Trimmed(sandbox.Kubectl("create token bot -n default").output);
  const std::string as_bot = "--token " + token + " ";
  // kubectl warns, before the answer, that nodes are not namespaced.
  EXPECT_THAT(Trimmed(sandbox.Kubectl("auth can-i delete nodes").output), EndsWith("\nyes"));
  EXPECT_EQ(Trimmed(sandbox.Kubectl(as_bot + "auth can-i list pods -n default").output), "no");
  auto result = sandbox.Kubectl("create role reader -n default --verb=get,list --resource=pods");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl(
      "create rolebinding bot-reads -n default --role=reader --serviceaccount=default:bot");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(Trimmed(sandbox.Kubectl(as_bot + "auth can-i list pods -n default").output), "yes");
  EXPECT_EQ(Trimmed(sandbox.Kubectl(as_bot + "auth can-i delete pods -n default").output), "no");
  EXPECT_EQ(Trimmed(sandbox.Kubectl(as_bot + "auth can-i list pods -n other").output), "no");
  result = sandbox.Kubectl(as_bot + "auth can-i --list -n default");  // a SelfSubjectRulesReview
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, ContainsRegex("pods +\\[\\] +\\[\\] +\\[get list\\]"));
  EXPECT_THAT(sandbox.Kubectl(as_bot + "auth can-i --list -n other").output,
              Not(HasSubstr("pods")));
  EXPECT_THAT(sandbox.Kubectl("auth can-i --list").output, HasSubstr("*.*"));
  result = sandbox.Kubectl("create clusterrole node-reader --verb=list --resource=nodes");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl(
      "create clusterrolebinding bot-nodes --clusterrole=node-reader --serviceaccount=default:bot");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(Trimmed(sandbox.Kubectl(as_bot + "auth can-i list nodes").output), EndsWith("\nyes"));
  result = sandbox.Kubectl(as_bot + "auth whoami");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("system:serviceaccount:default:bot"));
  EXPECT_THAT(result.output, HasSubstr("system:serviceaccounts:default"));
  EXPECT_THAT(sandbox.Kubectl("auth whoami").output, HasSubstr("system:masters"));
}

// A review that names neither or both kinds of attributes is invalid.
TEST(ServiceAccountAuth, AnAccessReviewNamesExactlyOneKindOfAttributes) {
  SandboxProcess sandbox({kFlag});
  auto client = sandbox.Http();
  const std::string path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
  const Json empty = {{"apiVersion", "authorization.k8s.io/v1"},
                      {"kind", "SelfSubjectAccessReview"},
                      {"spec", Json::object()}};
  auto response = client->Post(path.c_str(), empty.dump(), "application/json");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 422);
  EXPECT_THAT(response->body, HasSubstr("exactly one of nonResourceAttributes or "
                                        "resourceAttributes must be specified"));
  Json review = empty;
  review["spec"]["nonResourceAttributes"] = {{"path", "/healthz"}, {"verb", "get"}};
  response = client->Post(path.c_str(), review.dump(), "application/json");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 201);
  EXPECT_EQ(Json::parse(response->body)["status"]["allowed"], true);
}

TEST(ServiceAccountAuth, AdminTokenStaysAllPowerfulAndOtherTokensAreRefused) {
  SandboxProcess sandbox({kFlag});
  const std::string token = WorkerToken(sandbox);
  EXPECT_EQ(Status(sandbox.Http()->Get("/api/v1/nodes")), 200);
  EXPECT_EQ(Status(sandbox.Http()->Get("/api/v1/namespaces/default/pods")), 200);
  for (const std::string& bad : std::vector<std::string>{"sandbox-sa.unknown", "", token + "x"}) {
    auto response = As(sandbox, bad)->Get("/api/v1/namespaces");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 401) << bad;
    EXPECT_EQ(Json::parse(response->body)["reason"], "Unauthorized");
  }
  // Deleting the account revokes its tokens.
  EXPECT_EQ(Status(As(sandbox, token)->Get("/version")), 200);
  auto result = sandbox.Kubectl("delete serviceaccount worker -n default");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(Status(As(sandbox, token)->Get("/version")), 401);
  // No token for an account that does not exist.
  result = sandbox.Kubectl("create token nobody -n default");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.output, HasSubstr("serviceaccounts \"nobody\" not found"));
}

TEST(ServiceAccountAuth, DenialsAreLoggedWithARunningCount) {
  SandboxProcess sandbox({kFlag});
  auto client = As(sandbox, WorkerToken(sandbox));
  EXPECT_EQ(Status(client->Delete("/api/v1/namespaces/default/serviceaccounts/worker")), 403);
  EXPECT_EQ(
      Status(client->Post("/api/v1/namespaces/default/pods/p/eviction", "{}", "application/json")),
      403);
  const auto log = RunCommand("cat " + sandbox.dir() + "/sandbox.log").output;
  EXPECT_THAT(log, HasSubstr("sandbox: RBAC denial 1: serviceaccounts \"worker\" is forbidden: "
                             "User \"system:serviceaccount:default:worker\" cannot delete"));
  EXPECT_THAT(log, HasSubstr("sandbox: RBAC denial 2: pods \"p\" is forbidden: User "
                             "\"system:serviceaccount:default:worker\" cannot create resource "
                             "\"pods/eviction\" in API group \"\" in the namespace \"default\""));
}

TEST(ServiceAccountAuth, WithoutTheFlagThereAreNoAccountTokens) {
  SandboxProcess sandbox;
  Apply(sandbox, kWorker);
  const auto result = sandbox.Kubectl("create token worker -n default");
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_EQ(Status(sandbox.Http()->Get("/api/v1/namespaces/default/pods")), 200);
}

}  // namespace
}  // namespace gpupool::sandbox::testing
