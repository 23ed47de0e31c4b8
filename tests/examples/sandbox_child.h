// `gpupool sandbox` as a child process of the test, on a free loopback port.
// It never outlives the test: it is stopped by its PID at scope exit, when the
// constructor fails half-way, and by the kernel if the test process dies.
#pragma once

#include <sys/types.h>

#include <string>

namespace gpupool::examples::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line and collects its output.
CommandResult RunCommand(const std::string& command_line);

class SandboxChild {
 public:
  // Starts the sandbox and waits (bounded) until it has written its port.
  // Throws std::runtime_error, with the sandbox's log, when it does not start.
  SandboxChild();
  ~SandboxChild();
  SandboxChild(const SandboxChild&) = delete;
  SandboxChild& operator=(const SandboxChild&) = delete;

  // Runs `kubectl <arguments>` in `working_dir` against this sandbox.
  CommandResult Kubectl(const std::string& arguments, const std::string& working_dir) const;

 private:
  void Spawn();
  bool WaitForPort();
  void Stop();
  std::string Log() const;

  pid_t pid_ = -1;
  std::string dir_;
};

}  // namespace gpupool::examples::testing
