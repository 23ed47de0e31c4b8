#include "run_gpupool.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "sandbox_process.h"

namespace gpupool::cli::testing {

namespace {

Result Run(const std::string& command) {
  const auto result = sandbox::testing::RunCommand(command);
  return {result.exit_code, result.output};
}

}  // namespace

Result RunGpupool(const std::string& arguments) {
  return Run(std::string(GPUPOOL_BINARY) + " " + arguments);
}

Result RunShell(const std::string& script) {
  const ScratchDir dir;
  return Run("bash " + dir.Write("script.sh", script));
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
