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
      {"list -o table", "-o table: the formats are json, name, wide, yaml"},
      {"list --output", "--output needs a value"},
      {"list -n", "-n needs a value"},
      {"list --project", "--project needs a value"},
      {"list --frobnicate", "unknown argument \"--frobnicate\""},
      {"describe", "NAME is missing"},
      {"describe a b", "unknown argument \"b\""},
      {"describe a -A", "-A: NAME is one job of one namespace"},
      {"describe a -o wide", "-o wide: this command prints text only"},
      {"submit a --project p --gpus 1", "--image is required"},
      {"submit a --project p --gpus 1 --image x --timeout 0", "--timeout: 0 is outside [1, 86400]"},
      {"submit a --project p --gpus 1 --image x --priority 2000000",
       "--priority: 2000000 is outside [-1000000, 1000000]"},
      {"logs", "NAME is missing"},
      {"logs a --replica -1", "--replica: -1 is outside"},
      {"logs a --replica", "--replica needs a value"},
      {"delete", "NAME is missing"},
      {"delete a b", "unknown argument \"b\""},
      {"projects -n susan", "-n/-A: projects and queues belong to no namespace"},
      {"queues -o wide", "-o wide: the formats are json, yaml"},
      {"queues a b", "unknown argument \"b\""},
      {"completion", "which shell? bash or zsh"},
      {"completion fish", "which shell? bash or zsh"},
  };
  for (const auto& bad : cases) {
    const Result result = RunGpupool(bad.args);
    EXPECT_EQ(result.exit_code, 2) << bad.args << "\n" << result.output;
    EXPECT_NE(result.output.find(bad.says), std::string::npos) << bad.args << "\n" << result.output;
    EXPECT_NE(result.output.find("Usage: gpupool"), std::string::npos) << bad.args;
  }
}

TEST(JobsCli, AMissingKubeconfigIsNamed) {
  for (const std::string command :
       {"list", "describe job-1", "submit a --project p --gpus 1 --image x", "logs job-1",
        "delete job-1", "projects", "queues"}) {
    const Result result = RunGpupool(command + " --kubeconfig /nonexistent/kubeconfig");
    EXPECT_EQ(result.exit_code, 1) << result.output;
    EXPECT_NE(result.output.find("/nonexistent/kubeconfig"), std::string::npos) << result.output;
  }
}

TEST(JobsCli, HelpSaysWhatEachCommandShows) {
  EXPECT_NE(RunGpupool("list --help").output.find("over its project's quota"), std::string::npos);
  EXPECT_NE(RunGpupool("describe --help").output.find("why it waits"), std::string::npos);
  EXPECT_NE(RunGpupool("--help").output.find("describe"), std::string::npos);
  EXPECT_NE(RunGpupool("submit --help").output.find("refused"), std::string::npos);
  EXPECT_NE(RunGpupool("projects --help").output.find("over quota"), std::string::npos);
}

// The completion script is valid bash and completes the binary's commands.
TEST(JobsCli, CompletionCompletesTheCommands) {
  for (const std::string shell : {"bash", "zsh"}) {
    const Result script = RunGpupool("completion " + shell);
    ASSERT_EQ(script.exit_code, 0) << script.output;
    EXPECT_NE(script.output.find("complete -F _gpupool gpupool kubectl-gpupool"),
              std::string::npos);
  }
  const Result completed = gpupool::cli::testing::RunShell(
      "source <(" + std::string(GPUPOOL_BINARY) +
      " completion bash) && COMP_WORDS=(gpupool sub) COMP_CWORD=1 && _gpupool && "
      "echo \"${COMPREPLY[@]}\" && COMP_WORDS=(" +
      GPUPOOL_BINARY + " submit --ima) COMP_CWORD=2 && _gpupool && echo \"${COMPREPLY[@]}\"");
  EXPECT_EQ(completed.output, "submit\n--image\n");
}

}  // namespace
