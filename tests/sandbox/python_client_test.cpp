// The official Python client (Debian's python3-kubernetes) against the sandbox.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sandbox_process.h"

namespace gpupool::sandbox::testing {
namespace {

using ::testing::HasSubstr;

TEST(PythonClientTest, ListsWatchesAndResumes) {
  SandboxProcess sandbox({"--nodes", "2x8:pool=build", "--time-scale", "20"});
  ASSERT_EQ(sandbox.Kubectl("apply -f " + SourcePath("crds")).exit_code, 0);
  const auto result = sandbox.Python("list_watch.py");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("queues: listed, watched and resumed"));
}

TEST(PythonClientTest, ListsNodes) {
  SandboxProcess sandbox({"--nodes", "3x8:pool=train"});
  const auto result = sandbox.Python("list_nodes.py");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("nodes: listed 3 with complete node info"));
}

TEST(PythonClientTest, RecoversFromAForced410) {
  SandboxProcess sandbox({"--fault-compact", "1"});
  const auto result = sandbox.Python("recover_410.py");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("recovered"));
}

}  // namespace
}  // namespace gpupool::sandbox::testing
