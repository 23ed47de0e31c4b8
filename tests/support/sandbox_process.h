// Test helper: runs `gpupool sandbox` as a real process on a free loopback
// port, and real clients (kubectl, the Python client, HTTP) against it. The
// process is stopped by its PID when the helper goes out of scope, and by the
// kernel if the test process dies. The one copy every suite and bench links.
#pragma once

#include <httplib.h>
#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpupool::sandbox::testing {

using Json = nlohmann::json;

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line and collects its output.
CommandResult RunCommand(const std::string& command_line);

// The gpupool binary to run: $GPUPOOL_SANDBOX_BINARY, else the one this build
// makes (GPUPOOL_BINARY). Empty when neither exists.
std::string SandboxBinary();

// Skips the calling test, saying why, when there is no binary to run.
#define GPUPOOL_REQUIRE_SANDBOX()                           \
  if (::gpupool::sandbox::testing::SandboxBinary().empty()) \
  GTEST_SKIP() << "no gpupool binary at " GPUPOOL_BINARY    \
                  " (build the gpupool target, "            \
                  "or set GPUPOOL_SANDBOX_BINARY)"

class SandboxProcess {
 public:
  // Starts the sandbox with `flags` (plus --port 0, --port-file and
  // --kubeconfig-out in a fresh temporary directory) and waits until it serves.
  explicit SandboxProcess(std::vector<std::string> flags = {});
  ~SandboxProcess();
  SandboxProcess(const SandboxProcess&) = delete;
  SandboxProcess& operator=(const SandboxProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& dir() const { return dir_; }
  std::string kubeconfig() const { return dir_ + "/kubeconfig"; }
  std::string token() const { return token_; }
  bool plain_http() const { return plain_http_; }

  // kubectl with this sandbox's kubeconfig and a private cache directory.
  CommandResult Kubectl(const std::string& arguments) const;
  // The same, run in `working_dir` (relative paths in `arguments` are its).
  CommandResult KubectlIn(const std::string& arguments, const std::string& working_dir) const;
  // /usr/bin/python3 running tests/sandbox/python/<script> with the kubeconfig path.
  CommandResult Python(const std::string& script, const std::string& arguments = "") const;
  // A client for raw HTTP(S) requests, authenticated with the token.
  std::unique_ptr<httplib::Client> Http(bool authenticated = true) const;
  // Writes `text` to a file in dir() and returns its path.
  std::string WriteFile(const std::string& name, const std::string& text) const;

 private:
  void Stop();  // ends the process (SIGTERM, then SIGKILL) and removes dir()
  std::string ReadLog() const;

  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
  std::string token_ = "sandbox-test-token";
  bool plain_http_ = false;
};

std::string SourcePath(const std::string& relative);

}  // namespace gpupool::sandbox::testing
