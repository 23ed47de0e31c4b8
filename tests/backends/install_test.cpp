// What a user does first, on every backend: `kubectl apply -f crds/`, the
// examples, and the Helm chart (install, upgrade, uninstall). A CRD a real
// server refuses fails here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "crd_install.h"
#include "test_cluster.h"

namespace gpupool::backends::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class InstallOnBackend : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_BACKEND(GetParam());
    cluster_ = &ClusterFor(GetParam());
  }
  TestCluster* cluster_ = nullptr;
};

TEST_P(InstallOnBackend, CrdsApplyAndAreEstablished) {
  auto result = cluster_->Kubectl("apply -f crds/");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = cluster_->Kubectl("wait --for=condition=Established crd --all --timeout=60s");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  result = cluster_->Kubectl("get crd -o name");
  for (const char* crd : {"departments", "projects", "queues", "trainingjobs"}) {
    EXPECT_THAT(result.output, HasSubstr(std::string(crd) + ".gpupool.dev")) << result.output;
  }
}

TEST_P(InstallOnBackend, ExamplesApplyTwiceInOneCommand) {
  EnsureCrdsAndNamespace(*cluster_, "default");
  auto result = cluster_->Kubectl("apply -f examples/");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("trainingjob.gpupool.dev/llama-pretrain"));
  result = cluster_->Kubectl("apply -f examples/");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, Not(HasSubstr("created")));
}

TEST_P(InstallOnBackend, HelmChartInstallsUpgradesAndUninstalls) {
  if (RunInRepository("command -v helm").exit_code != 0) {
    GTEST_SKIP() << "helm is not on PATH (scripts/install-deps installs it)";
  }
  const std::string release = "gpupool helm/gpupool --namespace gpupool-system";
  auto result = cluster_->Helm("install " + release + " --create-namespace --wait=false");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("STATUS: deployed"));
  result = cluster_->Kubectl("get crd trainingjobs.gpupool.dev");
  EXPECT_EQ(result.exit_code, 0) << result.output;

  result = cluster_->Helm("upgrade " + release + " --reuse-values --set replicas=3");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = cluster_->Kubectl(
      "get deployment gpupool-controller -n gpupool-system -o jsonpath={.spec.replicas}");
  EXPECT_EQ(result.output, "3");

  result = cluster_->Helm("uninstall gpupool --namespace gpupool-system --wait=false");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = cluster_->Kubectl("get clusterroles -l app.kubernetes.io/instance=gpupool -o name");
  EXPECT_EQ(result.output, "");
}

INSTANTIATE_TEST_SUITE_P(All, InstallOnBackend, ::testing::ValuesIn(Backends()),
                         [](const auto& info) { return BackendTestName(info.param); });

}  // namespace
}  // namespace gpupool::backends::testing
