#include "sandbox_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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
  pid_ = fork();
  if (pid_ == 0) {
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
  if (port_ == 0) throw std::runtime_error("sandbox did not start; see " + dir_ + "/sandbox.log");
}

SandboxProcess::~SandboxProcess() {
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
