// examples/checkpoint_train.py, run for real: the loop a TrainingJob with
// spec.checkpoint runs saves its state on SIGTERM (what a preemption sends) and,
// started again with GPUPOOL_RESUME_FROM (what its replacement pods get), resumes
// from the saved step instead of step 0.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <thread>

#include "cluster_harness.h"

namespace gpupool::op::testing {
namespace {

namespace fs = std::filesystem;

// The example running as a child, its output read line by line.
class Loop {
 public:
  explicit Loop(const std::map<std::string, std::string>& env) {
    int out[2];
    if (pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
      const std::string script = sandbox::testing::SourcePath("examples/checkpoint_train.py");
      execlp("python3", "python3", script.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    output_ = fdopen(out[0], "r");
  }
  ~Loop() {
    if (output_) fclose(output_);
    if (pid_ > 0 && !waited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  // The next line of output, "" at its end.
  std::string Line() {
    char buffer[256];
    if (!output_ || !fgets(buffer, sizeof buffer, output_)) return "";
    std::string line(buffer);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    return line;
  }
  void Terminate() { kill(pid_, SIGTERM); }
  int ExitCode() {
    int status = 0;
    waitpid(pid_, &status, 0);
    waited_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  FILE* output_ = nullptr;
  bool waited_ = false;
};

int SavedStep(const fs::path& directory) {
  std::ifstream in(directory / "state.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::smatch match;
  if (!std::regex_search(text, match, std::regex(R"("step":\s*(\d+))"))) return -1;
  return std::stoi(match[1]);
}

TEST(CheckpointExample, SavesOnSigtermAndResumesFromTheSavedStep) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "python3 is not installed (scripts/install-deps installs it)";
  }
  const fs::path directory =
      fs::temp_directory_path() / ("gpupool-ckpt-" + std::to_string(getpid()));
  fs::remove_all(directory);
  const std::map<std::string, std::string> first_env = {
      {"GPUPOOL_CHECKPOINT_PATH", directory.string()},
      {"TRAIN_STEPS", "100000"},
      {"STEP_SECONDS", "0.005"},
      {"CHECKPOINT_EVERY", "1000000"}};  // Only the save on SIGTERM.
  int reached = 0;
  {
    Loop first(first_env);
    ASSERT_EQ(first.Line(), "starting at step 0 of 100000");
    for (std::string line = first.Line(); reached < 20 && !line.empty(); line = first.Line())
      reached = std::stoi(line.substr(line.find(' ') + 1));
    ASSERT_EQ(reached, 20);
    first.Terminate();
    std::string last;
    for (std::string line = first.Line(); !line.empty(); line = first.Line()) last = line;
    EXPECT_EQ(first.ExitCode(), 128 + SIGTERM);
    EXPECT_EQ(last, "saved step " + std::to_string(SavedStep(directory)) + " on SIGTERM");
  }
  const int saved = SavedStep(directory);
  ASSERT_GE(saved, 20);
  std::map<std::string, std::string> second_env = first_env;
  second_env["GPUPOOL_RESUME_FROM"] = directory.string();
  second_env["TRAIN_STEPS"] = std::to_string(saved + 5);
  Loop second(second_env);
  EXPECT_EQ(second.Line(),
            "starting at step " + std::to_string(saved) + " of " + std::to_string(saved + 5));
  std::string last;
  for (std::string line = second.Line(); !line.empty(); line = second.Line()) last = line;
  EXPECT_EQ(second.ExitCode(), 0);
  EXPECT_EQ(last, "done at step " + std::to_string(saved + 5));  // Five steps, not from zero.
  fs::remove_all(directory);
}

}  // namespace
}  // namespace gpupool::op::testing
