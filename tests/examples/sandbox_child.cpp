#include "sandbox_child.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gpupool::examples::testing {

CommandResult RunCommand(const std::string& command_line) {
  CommandResult result;
  FILE* pipe = popen((command_line + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer{};
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) {
    result.output.append(buffer.data(), n);
  }
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

SandboxChild::SandboxChild() {
  char pattern[] = "/tmp/gpupool-examples-test-XXXXXX";
  if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  Spawn();
  if (!WaitForPort()) {
    // The destructor does not run for a constructor that throws.
    const std::string log = Log();
    Stop();
    throw std::runtime_error("gpupool sandbox did not start:\n" + log);
  }
}

SandboxChild::~SandboxChild() { Stop(); }

void SandboxChild::Spawn() {
  std::vector<std::string> args = {
      GPUPOOL_BINARY, "sandbox",      "--port",           "0",
      "--port-file",  dir_ + "/port", "--kubeconfig-out", dir_ + "/kubeconfig"};
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ != 0) return;
  // Killed with the test process, even when it is killed itself (a ctest timeout).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  const std::string log = dir_ + "/sandbox.log";
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  if (freopen(log.c_str(), "w", stdout) && freopen(log.c_str(), "a", stderr)) {
    execv(argv[0], argv.data());
  }
  _exit(127);
}

bool SandboxChild::WaitForPort() {
  for (int i = 0; i < 400; ++i) {
    int port = 0;
    if (std::ifstream(dir_ + "/port") >> port && port > 0) return true;
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;  // exited: nothing left to stop
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return false;
}

void SandboxChild::Stop() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    bool exited = false;
    for (int i = 0; i < 100 && !exited; ++i) {
      exited = waitpid(pid_, nullptr, WNOHANG) == pid_;
      if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!exited) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  dir_.clear();
}

std::string SandboxChild::Log() const {
  std::stringstream text;
  text << std::ifstream(dir_ + "/sandbox.log").rdbuf();
  return text.str();
}

CommandResult SandboxChild::Kubectl(const std::string& arguments,
                                    const std::string& working_dir) const {
  return RunCommand("cd '" + working_dir + "' && KUBECONFIG=" + dir_ +
                    "/kubeconfig KUBECACHEDIR=" + dir_ + "/cache kubectl " + arguments);
}

}  // namespace gpupool::examples::testing
