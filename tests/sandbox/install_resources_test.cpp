// The kinds an install applies (ServiceAccounts, RBAC, Deployments) are
// served: discovered, created with kubectl's strict validation, read back,
// their unknown fields refused as a real server refuses them, and deleted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sandbox_process.h"

namespace gpupool::sandbox::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kObjects[] = R"(apiVersion: v1
kind: ServiceAccount
metadata: {name: robot, namespace: default}
automountServiceAccountToken: true
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
rules:
  - {apiGroups: [""], resources: [pods], verbs: [list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reader}
subjects: [{kind: ServiceAccount, name: robot, namespace: default}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: leases, namespace: default}
rules:
  - {apiGroups: [coordination.k8s.io], resources: [leases], resourceNames: [one], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: leases, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: leases}
subjects: [{kind: ServiceAccount, name: robot, namespace: default}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      serviceAccountName: robot
      containers: [{name: web, image: nginx, readinessProbe: {httpGet: {path: /, port: 80}}}]
)";

TEST(InstallResources, AreDiscoveredWithTheirScope) {
  SandboxProcess sandbox;
  const auto result = sandbox.Kubectl("api-resources --no-headers");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const char* line : {"serviceaccounts", "roles ", "rolebindings", "clusterroles",
                           "clusterrolebindings", "deployments"}) {
    EXPECT_THAT(result.output, HasSubstr(line));
  }
  const auto cluster_scoped = sandbox.Kubectl("api-resources --namespaced=false -o name");
  EXPECT_THAT(cluster_scoped.output, HasSubstr("clusterroles.rbac.authorization.k8s.io"));
  EXPECT_THAT(cluster_scoped.output, ::testing::Not(HasSubstr("\nroles.")));
}

TEST(InstallResources, ApplyGetAndDeleteWithKubectl) {
  SandboxProcess sandbox;
  const std::string file = sandbox.WriteFile("objects.yaml", kObjects);
  auto result = sandbox.Kubectl("apply -f " + file);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const char* created :
       {"serviceaccount/robot created", "clusterrole.rbac.authorization.k8s.io/reader created",
        "clusterrolebinding.rbac.authorization.k8s.io/reader created",
        "role.rbac.authorization.k8s.io/leases created",
        "rolebinding.rbac.authorization.k8s.io/leases created", "deployment.apps/web created"}) {
    EXPECT_THAT(result.output, HasSubstr(created));
  }
  result =
      sandbox.Kubectl("get deployment web -o jsonpath={.spec.template.spec.serviceAccountName}");
  EXPECT_EQ(result.output, "robot");
  result = sandbox.Kubectl("get clusterrole reader -o jsonpath={.rules[0].verbs}");
  EXPECT_EQ(result.output, R"(["list","watch"])");
  result = sandbox.Kubectl("apply -f " + file);
  EXPECT_THAT(result.output, HasSubstr("deployment.apps/web unchanged"));
  result = sandbox.Kubectl("delete -f " + file);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl("get deployments,roles,rolebindings -n default -o name");
  EXPECT_EQ(result.output, "");
}

TEST(InstallResources, RefuseUnknownFieldsWithStrictValidation) {
  SandboxProcess sandbox;
  const std::vector<std::pair<std::string, std::string>> typos = {
      {"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: a}\n"
       "rules: [{apiGroups: [\"\"], resources: [pods], verb: [get]}]\n",
       R"(unknown field "rules[0].verb")"},
      {"apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\n"
       "metadata: {name: b, namespace: default}\nroleref: {kind: Role, name: x}\n",
       R"(unknown field "roleref")"},
      {"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: c, namespace: default}\n"
       "spec:\n  selector: {matchLabels: {app: c}}\n  template:\n    metadata: {labels: {app: c}}\n"
       "    spec: {containers: [{name: c, image: x, livenesProbe: {}}]}\n",
       R"(unknown field "spec.template.spec.containers[0].livenesProbe")"},
      {"apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: d, namespace: default}\n"
       "automountToken: false\n",
       R"(unknown field "automountToken")"}};
  for (const auto& [yaml, message] : typos) {
    const auto result = sandbox.Kubectl("apply -f " + sandbox.WriteFile("typo.yaml", yaml));
    EXPECT_NE(result.exit_code, 0) << yaml;
    EXPECT_THAT(result.output, HasSubstr(message)) << yaml;
  }
}

}  // namespace
}  // namespace gpupool::sandbox::testing
