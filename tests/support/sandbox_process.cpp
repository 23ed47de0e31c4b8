#include "sandbox_process.h"

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
#include <iterator>
#include <stdexcept>
#include <thread>

namespace gpupool::sandbox::testing {

std::string SourcePath(const std::string& relative) {
  return std::string(GPUPOOL_SOURCE_DIR) + "/" + relative;
}

CommandResult RunCommand(const std::string& command_line) {
  CommandResult result;
  FILE* pipe = popen((command_line + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string SandboxBinary() {
  const char* override_path = std::getenv("GPUPOOL_SANDBOX_BINARY");
  std::string path = override_path && *override_path ? override_path : GPUPOOL_BINARY;
  return std::filesystem::exists(path) ? path : "";
}

SandboxProcess::SandboxProcess(std::vector<std::string> flags) {
  char pattern[] = "/tmp/gpupool-sandbox-test-XXXXXX";
  if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  for (const auto& flag : flags) plain_http_ = plain_http_ || flag == "--plain-http";
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
    const std::string log = dir_ + "/sandbox.log";
    if (freopen(log.c_str(), "w", stdout) && freopen(log.c_str(), "a", stderr)) {
      execv(argv[0], argv.data());
    }
    _exit(127);
  }
  // The server writes the port file once it listens; wait at most 10 s.
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
    const std::string log = ReadLog();
    Stop();
    throw std::runtime_error("sandbox did not start: " + log);
  }
}

std::string SandboxProcess::ReadLog() const {
  std::ifstream file(dir_ + "/sandbox.log");
  std::string log((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return log.empty() ? "(no output)" : log;
}

SandboxProcess::~SandboxProcess() { Stop(); }

void SandboxProcess::Stop() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
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

CommandResult SandboxProcess::Kubectl(const std::string& arguments) const {
  return RunCommand("KUBECONFIG=" + kubeconfig() + " KUBECACHEDIR=" + dir_ +
                    "/cache /usr/bin/kubectl " + arguments);
}

CommandResult SandboxProcess::KubectlIn(const std::string& arguments,
                                        const std::string& working_dir) const {
  return RunCommand("cd '" + working_dir + "' && " + "KUBECONFIG=" + kubeconfig() +
                    " KUBECACHEDIR=" + dir_ + "/cache /usr/bin/kubectl " + arguments);
}

CommandResult SandboxProcess::Python(const std::string& script,
                                     const std::string& arguments) const {
  return RunCommand("/usr/bin/python3 " + SourcePath("tests/sandbox/python/" + script) + " " +
                    kubeconfig() + " " + arguments);
}

std::unique_ptr<httplib::Client> SandboxProcess::Http(bool authenticated) const {
  const std::string scheme = plain_http_ ? "http" : "https";
  auto client = std::make_unique<httplib::Client>(scheme + "://127.0.0.1:" + std::to_string(port_));
  client->enable_server_certificate_verification(false);
  client->set_read_timeout(20, 0);
  if (authenticated) client->set_bearer_token_auth(token_.c_str());
  return client;
}

std::string SandboxProcess::WriteFile(const std::string& name, const std::string& text) const {
  const std::string path = dir_ + "/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace gpupool::sandbox::testing
