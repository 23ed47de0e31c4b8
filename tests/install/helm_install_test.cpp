// `helm install`, `helm upgrade` and `helm uninstall` of the chart on a
// `gpupool sandbox`, Helm keeping its releases in ConfigMaps (the sandbox
// serves no Secrets) and its caches in the sandbox's folder.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "install_files.h"

namespace gpupool::install::testing {
namespace {

using sandbox::testing::SandboxProcess;
using ::testing::HasSubstr;

sandbox::testing::CommandResult HelmOn(const SandboxProcess& sandbox,
                                       const std::string& arguments) {
  const std::string home = sandbox.dir() + "/helm";
  return RunInRepository("KUBECONFIG=" + sandbox.kubeconfig() +
                         " HELM_DRIVER=configmap HELM_CACHE_HOME=" + home +
                         "/cache HELM_CONFIG_HOME=" + home + "/config HELM_DATA_HOME=" + home +
                         "/data timeout 120 helm " + arguments);
}

TEST(HelmInstall, InstallsUpgradesAndUninstallsOnTheSandbox) {
  SKIP_WITHOUT_HELM();
  SandboxProcess sandbox;
  const std::string release = std::string("gpupool ") + kChart + " --namespace " + kNamespace;
  auto result = HelmOn(sandbox, "install " + release + " --create-namespace --wait=false");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("STATUS: deployed"));
  EXPECT_THAT(result.output,
              HasSubstr("leader election on Lease gpupool-system/gpupool-controller"));
  result = sandbox.Kubectl("get crd trainingjobs.gpupool.dev");
  EXPECT_EQ(result.exit_code, 0) << result.output;

  result = HelmOn(sandbox, "upgrade " + release + " --reuse-values --set replicas=3");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl(std::string("get deployment gpupool-controller -n ") + kNamespace +
                           " -o jsonpath={.spec.replicas}");
  EXPECT_EQ(result.output, "3");

  result = HelmOn(sandbox, std::string("uninstall gpupool --namespace ") + kNamespace);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl("get clusterroles,priorityclasses -o name");
  EXPECT_EQ(result.output, "");
  // Helm leaves the CRDs, and with them every gpupool object.
  result = sandbox.Kubectl("get crd trainingjobs.gpupool.dev");
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

}  // namespace
}  // namespace gpupool::install::testing
