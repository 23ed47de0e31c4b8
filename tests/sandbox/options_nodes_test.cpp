#include <gtest/gtest.h>

#include <filesystem>

#include "sandbox/nodes.h"
#include "sandbox/sandbox.h"
#include "sandbox_process.h"

namespace gpupool::sandbox {
namespace {

TEST(NodesTest, ParsesGroupsWithLabels) {
  const auto nodes = ParseNodes("2x8:pool=train,gpu=A100,rack=r1;6x2:pool=build,gpu=T4");
  ASSERT_EQ(nodes.size(), 8u);
  EXPECT_EQ(nodes[0].gpus, 8);
  EXPECT_EQ(nodes[7].gpus, 2);
  const Json node = NodeObject(nodes[0]);
  EXPECT_EQ(node["metadata"]["labels"]["rack"], "r1");
  EXPECT_EQ(node["status"]["allocatable"]["nvidia.com/gpu"], "8");
}

TEST(NodesTest, BadSpecsNameTheFlagAndPart) {
  for (const char* bad : {"x8", "2xA", "2x8:pool", "-1x2"}) {
    try {
      ParseNodes(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("--nodes"), std::string::npos) << error.what();
    }
  }
}

TEST(NodesTest, ReadsTheAlibabaNodeList) {
  const char* env = std::getenv("GPUPOOL_TRACE_DIR");
  const std::string dir = env ? env : testing::SourcePath("../shared/traces");
  const std::string path = dir + "/alibaba-gpu-2023/openb_node_list_gpu_node.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "trace not found at " << path;
  const auto nodes = ParseNodes(path);
  EXPECT_EQ(nodes.size(), 1213u);
  EXPECT_EQ(nodes[0].name, "openb-node-0000");
  EXPECT_EQ(nodes[0].gpus, 2);
  EXPECT_EQ(nodes[0].cpu_milli, 64000);
}

TEST(OptionsTest, ParsesFlags) {
  const auto options =
      ParseOptions({"--port", "0", "--time-scale=20", "--fault-error-rate", "list=0.5,create=1",
                    "--fault-error-codes", "429", "--plain-http", "--fault-latency", "30"});
  EXPECT_EQ(options.time_scale, 20);
  EXPECT_EQ(options.faults.error_rates.at("list"), 0.5);
  EXPECT_EQ(options.faults.error_codes, std::vector<int>{429});
  EXPECT_TRUE(options.plain_http);
  EXPECT_EQ(options.faults.latency_ms.at("*"), 30);
}

TEST(OptionsTest, BadFlagsNameTheFlag) {
  const std::vector<std::vector<std::string>> bad = {{"--bogus", "1"},
                                                     {"--port", "abc"},
                                                     {"--time-scale", "0"},
                                                     {"--fault-error-rate", "frobnicate=0.1"},
                                                     {"--fault-error-rate", "2"},
                                                     {"--fault-error-codes", "404"},
                                                     {"--port"}};
  for (const auto& args : bad) {
    try {
      ParseOptions(args);
      ADD_FAILURE() << args[0];
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(args[0]), std::string::npos) << error.what();
    }
  }
}

TEST(OptionsTest, BinaryRejectsBadFlagsAndNodes) {
  auto result = testing::RunCommand(std::string(GPUPOOL_BINARY) + " sandbox --nodes 2xZ");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--nodes"), std::string::npos) << result.output;
  result = testing::RunCommand(std::string(GPUPOOL_BINARY) + " sandbox --frob");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--frob"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace gpupool::sandbox
