// `gpupool controller` as a process: a stop signal ends it promptly even while it
// still waits for its caches (an API server that does not answer).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "sandbox_process.h"

namespace gpupool::op {
namespace {

using sandbox::testing::RunCommand;

TEST(ControllerProcess, StopsOnSigtermBeforeItsCachesSync) {
  const std::string kubeconfig = ::testing::TempDir() + "gpupool_unanswered_kubeconfig";
  RunCommand(
      "printf 'apiVersion: v1\\nkind: Config\\nclusters: [{name: c, cluster: {server: "
      "\"https://127.0.0.1:1\"}}]\\nusers: [{name: u, user: {token: t}}]\\ncontexts: [{name: x, "
      "context: {cluster: c, user: u}}]\\ncurrent-context: x\\n' > " +
      kubeconfig);
  const auto start = std::chrono::steady_clock::now();
  const auto result = RunCommand("bash -c 'timeout 30 " + std::string(GPUPOOL_BINARY) +
                                 " controller --kubeconfig " + kubeconfig +
                                 " --metrics-bind-address 127.0.0.1:0 --health-probe-bind-address "
                                 "127.0.0.1:0 & pid=$!; sleep 1; kill -TERM $pid; wait $pid; "
                                 "echo exit=$?' 2>&1");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(result.output.find("exit=0"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("stopped before the caches synced"), std::string::npos)
      << result.output;
  EXPECT_LT(seconds, 10) << "the controller outlived its stop signal: " << result.output;
  std::remove(kubeconfig.c_str());
}

}  // namespace
}  // namespace gpupool::op
