// The gpupool binary as a user runs it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_gpupool.h"

namespace {

using gpupool::cli::testing::Result;
using gpupool::cli::testing::RunGpupool;

TEST(Cli, HelpListsTheCommands) {
  Result result = RunGpupool("--help");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.output.find("version"), std::string::npos);
  EXPECT_NE(result.output.find("validate"), std::string::npos);
}

TEST(Cli, VersionPrintsTheApiGroup) {
  Result result = RunGpupool("version");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.output.find("gpupool.dev/v1alpha1"), std::string::npos);
}

// The binary runs on mimalloc (docs/development.md): it announces itself when asked.
TEST(Cli, BinaryAllocatesWithMimalloc) {
  ::setenv("MIMALLOC_VERBOSE", "1", 1);
  Result result = RunGpupool("version");
  ::unsetenv("MIMALLOC_VERBOSE");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.output.find("mimalloc: process init"), std::string::npos) << result.output;
}

TEST(Cli, UnknownCommandFailsWithUsage) {
  Result result = RunGpupool("frobnicate");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("unknown command \"frobnicate\""), std::string::npos);
}

// Flags are checked before anything connects: each bad value is named.
TEST(Cli, ControllerRefusesOutOfRangeFlagsNamingThem) {
  for (const std::string flag : {"--concurrent-writes 0",
                                 "--concurrent-writes 257",
                                 "--concurrent-writes many",
                                 "--qps -1",
                                 "--pause-per-plan -1",
                                 "--pause-per-plan 1001",
                                 "--pause-per-plan soon",
                                 "--burst 0",
                                 "--reservation-namespace Bad_Name",
                                 "--reservation-image ''",
                                 "--gpu-metrics-url dcgm:9400/metrics",
                                 "--gpu-metrics-url file:///etc/passwd",
                                 "--gpu-metrics-interval-seconds 0",
                                 "--gpu-metrics-timeout-seconds 601",
                                 "--gpu-metrics-ca-file /nonexistent/ca.pem",
                                 "--status-writes-per-cycle -1",
                                 "--status-writes-per-cycle 1000001",
                                 "--status-writes-per-cycle some",
                                 "--gated-pods-per-cycle -1",
                                 "--gated-pods-per-cycle 1000001",
                                 "--gated-pods-per-cycle 2.5",
                                 "--waiting-pods Gated",
                                 "--waiting-pods ''"}) {
    Result result = RunGpupool("controller " + flag);
    EXPECT_EQ(result.exit_code, 2) << flag << ": " << result.output;
    EXPECT_NE(result.output.find(flag.substr(0, flag.find(' '))), std::string::npos)
        << flag << ": " << result.output;
  }
}

// simulate-nodes checks its flags before it connects, naming the bad one.
TEST(Cli, SimulateNodesRefusesBadFlagsNamingThem) {
  for (const std::string flags :
       {"--nodes 2xmany", "--nodes 2x8:pool", "--nodes /nonexistent/nodes.txt",
        "--nodes 1x8 --time-scale 0", "--nodes 1x8 --start-seconds -1",
        "--nodes 1x8 --lease-seconds 2", "--nodes 1x8 --dcgm-port 70000",
        "--nodes 1x8 --dcgm-port any", "--nodes 1x8 --frobnicate"}) {
    Result result = RunGpupool("simulate-nodes " + flags);
    EXPECT_EQ(result.exit_code, 2) << flags << ": " << result.output;
    const std::string named =
        flags.substr(flags.rfind("--"), flags.find(' ', flags.rfind("--")) - flags.rfind("--"));
    EXPECT_NE(result.output.find(named), std::string::npos) << flags << ": " << result.output;
  }
  Result result = RunGpupool("simulate-nodes --time-scale 10");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("flag --nodes is required"), std::string::npos) << result.output;
}

// Its flags may carry their values after '=', as the API server's do.
TEST(Cli, SimulateNodesReadsValuesAfterAnEqualsSign) {
  Result port = RunGpupool("simulate-nodes --nodes=1x8 --dcgm-port=70000");
  EXPECT_EQ(port.exit_code, 2) << port.output;
  EXPECT_NE(port.output.find("flag --dcgm-port: \"70000\" is not a number from 0 to 65535"),
            std::string::npos)
      << port.output;
  Result delete_nodes = RunGpupool("simulate-nodes --nodes=1x8 --delete-nodes-on-exit=maybe");
  EXPECT_EQ(delete_nodes.exit_code, 2) << delete_nodes.output;
  EXPECT_NE(delete_nodes.output.find(
                "flag --delete-nodes-on-exit: expected true or false, got \"maybe\""),
            std::string::npos)
      << delete_nodes.output;
}

TEST(Cli, ValidateAcceptsTheExamples) {
  Result result = RunGpupool("validate " + std::string(GPUPOOL_SOURCE_DIR) + "/examples");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output.find("INVALID"), std::string::npos);
}

TEST(Cli, ValidateNamesTheBadField) {
  auto path = std::filesystem::temp_directory_path() / "gpupool-cli-bad.yaml";
  std::ofstream(path) << "apiVersion: gpupool.dev/v1alpha1\nkind: TrainingJob\n"
                         "metadata: {name: j}\nspec: {queue: train, gpusPerReplica: \"-1\",\n"
                         "  template: {spec: {containers: [{name: c}]}}}\n";
  Result result = RunGpupool("validate " + path.string());
  std::filesystem::remove(path);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("spec.gpusPerReplica: must be > 0"), std::string::npos)
      << result.output;
}

TEST(Cli, ValidateReportsUnreadableYaml) {
  auto path = std::filesystem::temp_directory_path() / "gpupool-cli-broken.yaml";
  std::ofstream(path) << "a: [1, 2\n";
  Result result = RunGpupool("validate " + path.string());
  std::filesystem::remove(path);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("gpupool-cli-broken.yaml:"), std::string::npos) << result.output;
}

}  // namespace
