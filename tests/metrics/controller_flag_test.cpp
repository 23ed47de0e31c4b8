// `gpupool controller --metrics-bind-address` and `--health-probe-bind-address`,
// run as a process: bad values are usage errors naming the flag; a port in use
// stops the controller with a clear error.
#include <gtest/gtest.h>

#include "gpupool/metrics/http_endpoint.h"
#include "sandbox_process.h"

namespace gpupool::metrics {
namespace {

using sandbox::testing::RunCommand;

const std::string kGpupool = GPUPOOL_BINARY;

const char* const kAddressFlags[] = {"--metrics-bind-address", "--health-probe-bind-address"};

TEST(MetricsBindAddressFlag, BadValueIsAUsageErrorNamingTheFlag) {
  for (const std::string flag : kAddressFlags) {
    for (const char* bad : {"8080", "host:", ":99999"}) {
      const auto result = RunCommand(kGpupool + " controller " + flag + " '" + bad + "' 2>&1");
      EXPECT_EQ(result.exit_code, 2) << flag << " " << bad;
      EXPECT_NE(result.output.find(flag + ": "), std::string::npos) << result.output;
    }
  }
}

TEST(MetricsBindAddressFlag, UsageTextListsBoth) {
  const auto result = RunCommand(kGpupool + " controller --help 2>&1");
  EXPECT_EQ(result.exit_code, 0);
  for (const std::string flag : kAddressFlags)
    EXPECT_NE(result.output.find(flag), std::string::npos) << result.output;
}

TEST(MetricsBindAddressFlag, OneAddressForBothIsAUsageError) {
  const auto result = RunCommand(kGpupool +
                                 " controller --metrics-bind-address :9000"
                                 " --health-probe-bind-address :9000 2>&1");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--metrics-bind-address and --health-probe-bind-address: both are "
                               "0.0.0.0:9000"),
            std::string::npos)
      << result.output;
}

TEST(MetricsBindAddressFlag, PortInUseStopsTheControllerWithAClearError) {
  const auto taken = ServeMetrics({"127.0.0.1", 0}, [] { return std::string(); });
  const std::string kubeconfig = ::testing::TempDir() + "gpupool_unreachable_kubeconfig";
  RunCommand(
      "printf 'apiVersion: v1\\nkind: Config\\nclusters: [{name: c, cluster: {server: "
      "\"https://127.0.0.1:1\"}}]\\nusers: [{name: u, user: {token: t}}]\\ncontexts: [{name: x, "
      "context: {cluster: c, user: u}}]\\ncurrent-context: x\\n' > " +
      kubeconfig);
  const std::string address = "127.0.0.1:" + std::to_string(taken->port());
  for (const std::string flag : kAddressFlags) {
    const std::string other = flag == kAddressFlags[0] ? kAddressFlags[1] : kAddressFlags[0];
    const auto result =
        RunCommand("timeout 20 " + kGpupool + " controller --kubeconfig " + kubeconfig + " " +
                   flag + " " + address + " " + other + " 127.0.0.1:0 2>&1");
    EXPECT_NE(result.exit_code, 0) << flag;
    EXPECT_NE(result.exit_code, 124) << "still running after 20 s: " << result.output;
    EXPECT_NE(result.output.find("cannot listen on " + address), std::string::npos)
        << result.output;
  }
  std::remove(kubeconfig.c_str());
}

TEST(MetricsSecureFlags, ACertDirWithoutItsFilesIsAUsageErrorNamingTheFile) {
  const auto result = RunCommand(kGpupool + " controller --metrics-secure --metrics-cert-dir " +
                                 "/nonexistent-gpupool-certs 2>&1");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--metrics-cert-dir: cannot read "
                               "\"/nonexistent-gpupool-certs/tls.crt\""),
            std::string::npos)
      << result.output;
}

TEST(MetricsSecureFlags, ACertDirWithoutSecureMetricsIsAUsageError) {
  const auto result =
      RunCommand("d=$(mktemp -d) && touch $d/tls.crt $d/tls.key && " + kGpupool +
                 " controller --metrics-cert-dir $d 2>&1; code=$?; rm -rf $d; exit $code");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--metrics-cert-dir: needs --metrics-secure"), std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace gpupool::metrics
