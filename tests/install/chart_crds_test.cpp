// crds/ is the one source of the CRDs; the chart's crds/ holds copies
// (scripts/sync-chart-crds), which must not drift.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "install_files.h"

namespace gpupool::install::testing {
namespace {

std::set<std::string> YamlFiles(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".yaml") names.insert(entry.path().filename().string());
  }
  return names;
}

TEST(ChartCrds, AreExactCopiesOfCrds) {
  const std::string source = sandbox::testing::SourcePath("crds");
  const std::string chart = sandbox::testing::SourcePath(std::string(kChart) + "/crds");
  const auto names = YamlFiles(source);
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(YamlFiles(chart), names) << "run scripts/sync-chart-crds";
  for (const auto& name : names) {
    const std::string copy = chart + "/" + name;
    EXPECT_FALSE(std::filesystem::is_symlink(copy)) << copy;
    EXPECT_EQ(ReadText(copy), ReadText(source + "/" + name))
        << copy << " differs from crds/" << name << ": run scripts/sync-chart-crds";
  }
}

}  // namespace
}  // namespace gpupool::install::testing
