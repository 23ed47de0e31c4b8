#include <gtest/gtest.h>

#include <filesystem>

#include "sandbox/nodes/nodes.h"
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

// The error ParseNodes throws for `spec`; "" when it accepts it.
std::string NodesError(const std::string& spec) {
  try {
    ParseNodes(spec);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(NodesTest, BadSpecsNameTheFlagAndPart) {
  for (const char* bad : {"x8", "2xA", "2x8:pool", "-1x2"})
    EXPECT_NE(NodesError(bad).find("--nodes"), std::string::npos) << bad << ": " << NodesError(bad);
}

TEST(NodesTest, LabelsTheApiServerWouldRefuseNameTheLabel) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"2x8:gpu=A100 ", "label value \"A100 \""},
      {"2x8:pool=-train", "label value \"-train\""},
      {"2x8:pool=" + std::string(64, 'a'), "is not a valid label value"},
      {"2x8:my pool=a", "label key \"my pool\""},
      {"2x8:/pool=a", "label key \"/pool\""},
      {"1x8:pool=a,rack=r1,pool=b", "label \"pool\" is given twice"}};
  for (const auto& [spec, why] : bad) {
    const std::string error = NodesError(spec);
    EXPECT_NE(error.find("flag --nodes"), std::string::npos) << spec << ": " << error;
    EXPECT_NE(error.find(why), std::string::npos) << spec << ": " << error;
  }
  EXPECT_EQ(ParseNodes("1x8:pool=,zone=eu-1").size(), 1u) << "an empty value is a label value";
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

TEST(OptionsTest, SwitchesTakeTrueOrFalseAfterAnEqualsSign) {
  EXPECT_FALSE(ParseOptions({"--plain-http=false"}).plain_http);
  EXPECT_TRUE(ParseOptions({"--plain-http=true"}).plain_http);
  EXPECT_TRUE(ParseOptions({"--authorize-service-accounts"}).authorize_service_accounts);
  EXPECT_FALSE(ParseOptions({"--authorize-service-accounts=false"}).authorize_service_accounts);
  try {
    ParseOptions({"--plain-http=yes"});
    ADD_FAILURE() << "--plain-http=yes was taken";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("--plain-http"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("expected true or false, got \"yes\""),
              std::string::npos)
        << error.what();
  }
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

TEST(OptionsTest, NumbersOutOfRangeNameTheFlagAndTheRange) {
  const std::vector<std::vector<std::string>> bad = {
      {"--fault-latency", "1e20"},   {"--fault-latency", "list=1e20"}, {"--port", "1e20"},
      {"--threads", "1e12"},         {"--watch-history", "1e300"},     {"--start-seconds", "1e300"},
      {"--bookmark-seconds", "inf"}, {"--fault-retry-after", "1e10"},  {"--fault-seed", "1e30"},
      {"--time-scale", "nan"},       {"--fault-watch-cut", "1e300"}};
  for (const auto& args : bad) {
    try {
      ParseOptions(args);
      ADD_FAILURE() << args[0] << " " << args[1];
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(args[0]), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find(" to "), std::string::npos) << error.what();
    }
  }
}

TEST(NodesTest, RefusesHugeClustersAndMissingFiles) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"100000000x8", "maximum of 100000"},
      {"60000x8;60000x8", "maximum of 100000 nodes"},
      {"1x2000", "maximum of 1024"},
      {"99999999999999999999999x8", "maximum of 100000"},
      {"/nope.txt", "file \"/nope.txt\" does not exist"},
      {"nodes.txt", "does not exist"},
      {"/tmp", "is not a regular file"}};
  for (const auto& [spec, why] : bad)
    EXPECT_NE(NodesError(spec).find(why), std::string::npos) << spec << ": " << NodesError(spec);
  // Label keys may hold a slash: a spec with one is still a spec.
  EXPECT_EQ(ParseNodes("2x8:example.com/pool=a").size(), 2u);
}

TEST(OptionsTest, BinaryRejectsBadFlagsAndNodes) {
  auto result = testing::RunCommand(std::string(GPUPOOL_BINARY) + " sandbox --nodes 2xZ");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--nodes"), std::string::npos) << result.output;
  result = testing::RunCommand(std::string(GPUPOOL_BINARY) + " sandbox --frob");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--frob"), std::string::npos) << result.output;
  result = testing::RunCommand(std::string(GPUPOOL_BINARY) + " sandbox --nodes 100000000x8");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("maximum of 100000"), std::string::npos) << result.output;
  result = testing::RunCommand(std::string(GPUPOOL_BINARY) + " sandbox --nodes /nope.txt");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("does not exist"), std::string::npos) << result.output;
  result = testing::RunCommand(std::string(GPUPOOL_BINARY) + " sandbox --fault-latency 1e20");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--fault-latency"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace gpupool::sandbox
