// `gpupool controller --metrics-bind-address`, run as a process: bad values
// are usage errors naming the flag; a port in use stops the controller with a
// clear error.
#include <gtest/gtest.h>

#include "gpupool/metrics/http_endpoint.h"
#include "sandbox_process.h"

namespace gpupool::metrics {
namespace {

using sandbox::testing::RunCommand;

const std::string kGpupool = GPUPOOL_BINARY;

TEST(MetricsBindAddressFlag, BadValueIsAUsageErrorNamingTheFlag) {
  for (const char* bad : {"8080", "host:", ":99999"}) {
    const auto result =
        RunCommand(kGpupool + " controller --metrics-bind-address '" + bad + "' 2>&1");
    EXPECT_EQ(result.exit_code, 2) << bad;
    EXPECT_NE(result.output.find("--metrics-bind-address"), std::string::npos) << result.output;
  }
}

TEST(MetricsBindAddressFlag, UsageTextListsIt) {
  const auto result = RunCommand(kGpupool + " controller --help 2>&1");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.output.find("--metrics-bind-address"), std::string::npos) << result.output;
}

TEST(MetricsBindAddressFlag, PortInUseStopsTheControllerWithAClearError) {
  HttpEndpoint taken({"127.0.0.1", 0}, {[] { return std::string(); }, {}});
  const std::string kubeconfig = ::testing::TempDir() + "gpupool_unreachable_kubeconfig";
  RunCommand(
      "printf 'apiVersion: v1\\nkind: Config\\nclusters: [{name: c, cluster: {server: "
      "\"https://127.0.0.1:1\"}}]\\nusers: [{name: u, user: {token: t}}]\\ncontexts: [{name: x, "
      "context: {cluster: c, user: u}}]\\ncurrent-context: x\\n' > " +
      kubeconfig);
  const std::string address = "127.0.0.1:" + std::to_string(taken.port());
  const auto result = RunCommand("timeout 20 " + kGpupool + " controller --kubeconfig " +
                                 kubeconfig + " --metrics-bind-address " + address + " 2>&1");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.exit_code, 124) << "still running after 20 s: " << result.output;
  EXPECT_NE(result.output.find("cannot listen on " + address), std::string::npos) << result.output;
  std::remove(kubeconfig.c_str());
}

}  // namespace
}  // namespace gpupool::metrics
