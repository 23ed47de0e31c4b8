#include "crd_install.h"

#include <gtest/gtest.h>

#include <set>

namespace gpupool::backends::testing {

void EnsureCrdsAndNamespace(TestCluster& cluster, const std::string& ns) {
  static std::set<const TestCluster*> installed;
  static std::set<std::string> namespaces;
  if (installed.insert(&cluster).second) {
    auto result = cluster.Kubectl("apply -f crds/");
    if (result.exit_code != 0) ADD_FAILURE() << "kubectl apply -f crds/: " << result.output;
    result = cluster.Kubectl("wait --for=condition=Established crd --all --timeout=60s");
    if (result.exit_code != 0) ADD_FAILURE() << "CRDs not Established: " << result.output;
  }
  if (namespaces.insert(cluster.backend() + "/" + ns).second) {
    auto result = cluster.Kubectl("create namespace " + ns);
    if (result.exit_code != 0 && result.output.find("AlreadyExists") == std::string::npos) {
      ADD_FAILURE() << "kubectl create namespace " << ns << ": " << result.output;
    }
  }
}

}  // namespace gpupool::backends::testing
