// `gpupool list` and `gpupool describe` refuse bad flags before connecting,
// naming the flag, and say so when the cluster cannot be reached.
#include <gtest/gtest.h>

#include <string>

#include "run_gpupool.h"

namespace {

using gpupool::cli::testing::Result;
using gpupool::cli::testing::RunGpupool;

TEST(JobsCli, BadFlagsAreRefusedNamingThem) {
  const struct {
    std::string args;
    std::string says;
  } cases[] = {
      {"list -o yaml", "-o yaml: the formats are json, wide"},
      {"list --output", "--output needs a value"},
      {"list -n", "-n needs a value"},
      {"list --project", "--project needs a value"},
      {"list --frobnicate", "unknown argument \"--frobnicate\""},
      {"describe", "NAME is missing"},
      {"describe a b", "unknown argument \"b\""},
      {"describe a -A", "-A: describe names one job"},
      {"describe a -o wide", "-o wide: this command prints text only"},
  };
  for (const auto& bad : cases) {
    const Result result = RunGpupool(bad.args);
    EXPECT_EQ(result.exit_code, 2) << bad.args << "\n" << result.output;
    EXPECT_NE(result.output.find(bad.says), std::string::npos) << bad.args << "\n" << result.output;
    EXPECT_NE(result.output.find("Usage: gpupool"), std::string::npos) << bad.args;
  }
}

TEST(JobsCli, AMissingKubeconfigIsNamed) {
  for (const std::string command : {"list", "describe job-1"}) {
    const Result result = RunGpupool(command + " --kubeconfig /nonexistent/kubeconfig");
    EXPECT_EQ(result.exit_code, 1) << result.output;
    EXPECT_NE(result.output.find("/nonexistent/kubeconfig"), std::string::npos) << result.output;
  }
}

TEST(JobsCli, HelpSaysWhatEachCommandShows) {
  EXPECT_NE(RunGpupool("list --help").output.find("over its project's quota"), std::string::npos);
  EXPECT_NE(RunGpupool("describe --help").output.find("why it waits"), std::string::npos);
  EXPECT_NE(RunGpupool("--help").output.find("describe"), std::string::npos);
}

}  // namespace
