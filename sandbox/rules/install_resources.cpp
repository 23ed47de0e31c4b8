#include "sandbox/rules/install_resources.h"

namespace gpupool::sandbox {

std::vector<ResourcePtr> InstallResources() {
  const std::string rbac = "rbac.authorization.k8s.io";
  return {
      BuiltinResource("", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"},
                      false),
      BuiltinResource(rbac, "v1", "roles", "role", "Role", true, {}, false),
      BuiltinResource(rbac, "v1", "rolebindings", "rolebinding", "RoleBinding", true, {}, false),
      BuiltinResource(rbac, "v1", "clusterroles", "clusterrole", "ClusterRole", false, {}, false),
      BuiltinResource(rbac, "v1", "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding",
                      false, {}, false),
      BuiltinResource("apps", "v1", "deployments", "deployment", "Deployment", true, {"deploy"},
                      true),
      BuiltinResource("batch", "v1", "jobs", "job", "Job", true, {}, true),
  };
}

}  // namespace gpupool::sandbox
