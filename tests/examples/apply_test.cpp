// Every folder of examples/ applies to a fresh cluster in one command, exactly
// as the examples' README tells a newcomer to do it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "sandbox_process.h"

namespace gpupool::examples::testing {

using ::gpupool::sandbox::testing::RunCommand;
using ::gpupool::sandbox::testing::SandboxProcess;
namespace {

using ::testing::HasSubstr;

// "examples/" and every folder below it, relative to the repository.
std::vector<std::string> ExampleFolders() {
  std::vector<std::string> folders = {"examples/"};
  const std::filesystem::path root = std::string(GPUPOOL_SOURCE_DIR) + "/examples";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_directory()) continue;
    folders.push_back("examples/" + entry.path().lexically_relative(root).string() + "/");
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

// gpupool's CRDs, and stand-ins for the other owners' (a PyTorchJob's) that
// a cluster running those operators has.
void InstallCrds(const SandboxProcess& sandbox) {
  auto result =
      sandbox.KubectlIn("apply -f crds/ -f tests/support/stand_in_crds.yaml", GPUPOOL_SOURCE_DIR);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.KubectlIn("wait --for=condition=Established crd --all --timeout=30s",
                             GPUPOOL_SOURCE_DIR);
  ASSERT_EQ(result.exit_code, 0) << result.output;
}

TEST(Examples, EveryFolderAppliesToAFreshClusterInOneCommand) {
  for (const auto& folder : ExampleFolders()) {
    SCOPED_TRACE(folder);
    SandboxProcess sandbox;
    InstallCrds(sandbox);
    auto result = sandbox.KubectlIn("apply -f " + folder, GPUPOOL_SOURCE_DIR);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_THAT(result.output, HasSubstr("created"));
    // Idempotent: applying again succeeds and changes nothing.
    result = sandbox.KubectlIn("apply -f " + folder, GPUPOOL_SOURCE_DIR);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_THAT(result.output, ::testing::Not(HasSubstr("created")));
  }
}

}  // namespace
}  // namespace gpupool::examples::testing
