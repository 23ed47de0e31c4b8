#include "sandbox_process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

#include "test_tls.h"

namespace gpupool::kube::testing {

std::string SandboxBinary() {
  const char* override_path = std::getenv("GPUPOOL_SANDBOX_BINARY");
  std::string path = override_path && *override_path ? override_path : GPUPOOL_BINARY;
  return std::filesystem::exists(path) ? path : "";
}

SandboxProcess::SandboxProcess(std::vector<std::string> flags) {
  dir_ = MakeTempDir("gpupool-kube-sandbox");
  std::vector<std::string> args = {
      SandboxBinary(), "sandbox",      "--port",           "0",
      "--port-file",   dir_ + "/port", "--kubeconfig-out", dir_ + "/kubeconfig",
      "--token",       token_};
  args.insert(args.end(), flags.begin(), flags.end());
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) {
    std::filesystem::remove_all(dir_);
    throw std::runtime_error("fork failed");
  }
  if (pid_ == 0) {
    // The sandbox dies with the test, even one that aborts (a failed
    // assertion beside a joinable thread) and so runs no destructor.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::string log = dir_ + "/sandbox.log";
    if (freopen(log.c_str(), "w", stdout) && freopen(log.c_str(), "a", stderr))
      execv(argv[0], argv.data());
    _exit(127);
  }
  // The sandbox writes the port file once it listens; wait at most 10 s.
  for (int i = 0; i < 400 && port_ == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    std::ifstream file(dir_ + "/port");
    int port = 0;
    if (file >> port && std::filesystem::exists(kubeconfig())) port_ = port;
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
  }
  if (port_ == 0) {
    // The destructor does not run for a constructor that throws: stop the
    // process here, but keep its log for the message.
    std::ifstream file(dir_ + "/sandbox.log");
    const std::string log((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    Stop();
    throw std::runtime_error("sandbox did not start: " + (log.empty() ? "(no output)" : log));
  }
}

SandboxProcess::~SandboxProcess() { Stop(); }

void SandboxProcess::Stop() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100 && pid_ > 0; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_)
        pid_ = -1;
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

}  // namespace gpupool::kube::testing
