// `make demo` as a newcomer runs it, piped: the story's steps and the replay's
// one-sentence result are there, and no build chatter or escape codes. It runs on
// the build folder of these tests, where the binary is already built, so the build
// step only checks that it is up to date (the compiler's output would go to a log).
// The cluster it leaves running is stopped by the PIDs it prints.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>

namespace gpupool::examples::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string RunDemo(const std::string& work) {
  const std::string build_dir = std::filesystem::path(GPUPOOL_BINARY).parent_path().string();
  // As typed at a shell: not a sub-make of `make test` (which would announce its directory).
  const std::string command =
      "cd " + std::string(GPUPOOL_SOURCE_DIR) +
      " && env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS GPUPOOL_DEMO_DIR=" + work +
      " timeout 260 make demo BUILD_DIR=" + build_dir + " 2>&1";
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return output;
  char buffer[4096];
  for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  pclose(pipe);
  return output;
}

// Stops what the demo left running, by the PIDs its last line names.
void StopLeftRunning(const std::string& output) {
  std::smatch pids;
  if (!std::regex_search(output, pids, std::regex(R"(Stop it with: kill (\d+) (\d+))"))) return;
  for (int i = 1; i <= 2; ++i) kill(std::stoi(pids[i]), SIGTERM);
}

TEST(Demo, PipedOutputTellsTheStoryWithoutChatterOrEscapeCodes) {
  const std::string work =
      (std::filesystem::temp_directory_path() / ("gpupool-demo-test-" + std::to_string(getpid())))
          .string();
  std::filesystem::create_directories(work);
  const std::string output = RunDemo(work);
  StopLeftRunning(output);
  EXPECT_THAT(output, HasSubstr("Susan submits 8 jobs while the others are idle"));
  EXPECT_THAT(output, HasSubstr("2 of Susan's over-quota jobs make room"));
  EXPECT_THAT(output, HasSubstr("Susan's stopped jobs resume by themselves"));
  EXPECT_THAT(output, HasSubstr("Try next:"));
  EXPECT_THAT(output, HasSubstr("Stop it with: kill"));
  const bool traces =
      std::filesystem::exists(std::string(GPUPOOL_SOURCE_DIR) + "/../shared/traces/philly-vc");
  if (traces) {
    EXPECT_THAT(output, HasSubstr("guaranteed quotas raise utilization from"));
  } else {
    EXPECT_THAT(output, HasSubstr("No traces in"));
  }
  EXPECT_THAT(output, Not(HasSubstr("\033[")));
  EXPECT_THAT(output, HasSubstr("Building " + std::filesystem::path(GPUPOOL_BINARY).string()));
  EXPECT_THAT(output, Not(HasSubstr("Entering directory")));
  EXPECT_THAT(output, Not(HasSubstr("Built target")));
  EXPECT_THAT(output, Not(HasSubstr("-- Configuring done")));
  EXPECT_THAT(output, Not(HasSubstr("bash scripts/install-deps")));
  std::filesystem::remove_all(work);
}

}  // namespace
}  // namespace gpupool::examples::testing
