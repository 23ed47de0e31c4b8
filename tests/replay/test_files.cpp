#include "test_files.h"

#include <gtest/gtest.h>

#include <fstream>

#include "gpupool/replay/traces.h"

namespace gpupool::replay::testing {

std::string WriteTempFile(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "gpupool-replay-tests";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

std::string TraceFileOrEmpty(const std::string& relative) {
  const auto path = std::filesystem::path(TraceDir()) / relative;
  return std::filesystem::exists(path) ? path.string() : std::string();
}

}  // namespace gpupool::replay::testing
