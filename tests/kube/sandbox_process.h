// Runs `gpupool sandbox` as a separate process on a free loopback port for the
// kube integration tests, and stops it (by its PID) when destroyed.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace gpupool::kube::testing {

// The gpupool binary to run: $GPUPOOL_SANDBOX_BINARY, else the one this build
// makes (GPUPOOL_BINARY). Empty when neither exists.
std::string SandboxBinary();

// Skips the calling test, saying why, when there is no binary to run.
#define GPUPOOL_REQUIRE_SANDBOX()                        \
  if (::gpupool::kube::testing::SandboxBinary().empty()) \
  GTEST_SKIP() << "no gpupool binary at " GPUPOOL_BINARY \
                  " (build the gpupool target, "         \
                  "or set GPUPOOL_SANDBOX_BINARY)"

class SandboxProcess {
 public:
  explicit SandboxProcess(std::vector<std::string> flags = {});
  ~SandboxProcess();
  SandboxProcess(const SandboxProcess&) = delete;
  SandboxProcess& operator=(const SandboxProcess&) = delete;

  const std::string& dir() const { return dir_; }
  std::string kubeconfig() const { return dir_ + "/kubeconfig"; }
  int port() const { return port_; }
  const std::string& token() const { return token_; }

 private:
  void Stop();  // ends the process (SIGTERM, then SIGKILL) and removes dir()

  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
  std::string token_ = "kube-client-test-token";
};

}  // namespace gpupool::kube::testing
