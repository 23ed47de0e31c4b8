#include "run_gpupool.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace gpupool::cli::testing {

namespace {

Result Run(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string output;
  std::array<char, 4096> buffer{};
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace

Result RunGpupool(const std::string& arguments) {
  return Run(std::string(GPUPOOL_BINARY) + " " + arguments + " 2>&1");
}

Result RunShell(const std::string& script) {
  const ScratchDir dir;
  return Run("bash " + dir.Write("script.sh", script) + " 2>&1");
}

ScratchDir::ScratchDir() {
  char pattern[] = "/tmp/gpupool-cli-test-XXXXXX";
  if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string ScratchDir::Write(const std::string& name, const std::string& text) const {
  std::string file = path_ + "/" + name;
  std::ofstream(file) << text;
  return file;
}

}  // namespace gpupool::cli::testing
