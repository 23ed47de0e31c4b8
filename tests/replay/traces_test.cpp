#include "gpupool/replay/traces.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "replay/csv.h"
#include "test_files.h"

namespace gpupool::replay {
namespace {

using ::testing::HasSubstr;
using testing::WriteTempFile;

std::string ErrorOf(const std::function<void()>& load) {
  try {
    load();
  } catch (const TraceError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(CsvTest, SplitsQuotedFields) {
  EXPECT_EQ(SplitCsvLine("a,\"b,c\",\"d\"\"e\",\r"),
            (std::vector<std::string>{"a", "b,c", "d\"e", ""}));
}

TEST(PhillyTraceTest, LoadsSortedByArrivalRelativeToTheFirst) {
  const auto path = WriteTempFile("philly.csv",
                                  "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                  "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
                                  "2017-10-09 07:00:00,10.5,16,168.0,6214e9\n");
  const auto jobs = LoadPhillyTrace(path);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].tenant, "6214e9");
  EXPECT_EQ(jobs[0].arrival, 0);
  EXPECT_EQ(jobs[0].gpus, 16);
  EXPECT_EQ(jobs[0].id, 3);  // its line in the file
  EXPECT_EQ(jobs[1].arrival, 115);
  EXPECT_DOUBLE_EQ(jobs[1].duration, 66.0);
}

TEST(PhillyTraceTest, ErrorsNameFileLineAndColumn) {
  const std::string header = "timestamp,duration,num_gpus,gpu_time,cluster\n";
  const std::string good = "2017-10-09 07:01:55,66.0,1,66.0,a\n";
  auto error = [&](const std::string& row) {
    const auto path = WriteTempFile("bad.csv", header + good + row);
    return ErrorOf([&] { LoadPhillyTrace(path); });
  };
  EXPECT_THAT(error("2017-10-09 07:01:55,66.0,x,66.0,a\n"),
              HasSubstr("bad.csv:3: column \"num_gpus\": expected an integer, got \"x\""));
  EXPECT_THAT(error("2017-13-09 07:01:55,66.0,1,66.0,a\n"),
              HasSubstr("bad.csv:3: column \"timestamp\": expected \"YYYY-MM-DD HH:MM:SS\""));
  EXPECT_THAT(error("2017-10-09 07:01:55,-1,1,66.0,a\n"),
              HasSubstr(":3: column \"duration\": must be >= 0"));
  EXPECT_THAT(error("2017-10-09 07:01:55,abc,1,66.0,a\n"),
              HasSubstr(":3: column \"duration\": expected a number, got \"abc\""));
  EXPECT_THAT(error("2017-10-09 07:01:55,1,0,66.0,a\n"),
              HasSubstr(":3: column \"num_gpus\": must be between 1 and 100000"));
  EXPECT_THAT(error("2017-10-09 07:01:55,1,1,66.0,\n"),
              HasSubstr(":3: column \"cluster\": must not be empty"));
  EXPECT_THAT(error("2017-10-09 07:01:55,1,1\n"), HasSubstr("bad.csv:3: expected 5 fields, got 3"));
}

TEST(PhillyTraceTest, MissingFileColumnOrRows) {
  EXPECT_THAT(ErrorOf([] { LoadPhillyTrace("/nonexistent/philly.csv"); }),
              HasSubstr("/nonexistent/philly.csv: cannot open file"));
  const auto no_cluster = WriteTempFile("nocluster.csv", "timestamp,duration,num_gpus\n");
  EXPECT_THAT(ErrorOf([&] { LoadPhillyTrace(no_cluster); }),
              HasSubstr("nocluster.csv:1: missing column \"cluster\""));
  const auto empty = WriteTempFile("empty.csv", "");
  EXPECT_THAT(ErrorOf([&] { LoadPhillyTrace(empty); }), HasSubstr("empty file"));
  const auto header_only =
      WriteTempFile("header.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n");
  EXPECT_THAT(ErrorOf([&] { LoadPhillyTrace(header_only); }), HasSubstr("no jobs"));
}

TEST(AlibabaTraceTest, LoadsNodesAndTasks) {
  const auto nodes = LoadAlibabaNodes(
      WriteTempFile("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\n"));
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].gpus, 2);
  EXPECT_EQ(nodes[0].model, "P100");
  const auto tasks = LoadAlibabaTasks(WriteTempFile(
      "pods.csv",
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
      "p0,6000,12288,1,460,\np1,88000,327680,8,1000,V100M16|V100M32\np2,1000,10,0,0,\n"));
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(tasks[0].TotalGpuMilli(), 460);
  EXPECT_EQ(tasks[1].TotalGpuMilli(), 8000);
  EXPECT_EQ(tasks[1].gpu_spec, "V100M16|V100M32");
  EXPECT_EQ(tasks[2].TotalGpuMilli(), 0);
}

TEST(AlibabaTraceTest, TaskErrorsNameLineAndColumn) {
  const std::string header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n";
  auto error = [&](const std::string& row) {
    const auto path = WriteTempFile("pods.csv", header + row);
    return ErrorOf([&] { LoadAlibabaTasks(path); });
  };
  EXPECT_THAT(error("p,1,1,2,500\n"),
              HasSubstr("pods.csv:2: column \"gpu_milli\": must be 1000 when num_gpu > 1"));
  EXPECT_THAT(error("p,1,1,1,1500\n"), HasSubstr(":2: column \"gpu_milli\": must be 1..1000"));
  EXPECT_THAT(error("p,1,1,0,5\n"), HasSubstr("must be 0 when num_gpu is 0"));
  EXPECT_THAT(error("p,-1,1,0,0\n"), HasSubstr(":2: column \"cpu_milli\": must be >= 0"));
  EXPECT_THAT(error("p,1,1,1.5,0\n"), HasSubstr("column \"num_gpu\": expected an integer"));
  const auto nodes = WriteTempFile("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn,1,1,-2,T4\n");
  EXPECT_THAT(ErrorOf([&] { LoadAlibabaNodes(nodes); }),
              HasSubstr("nodes.csv:2: column \"gpu\": must be between 0 and 64"));
}

TEST(RealTraceTest, PhillyAndAlibabaLoadWhenPresent) {
  const auto philly = testing::TraceFileOrEmpty("philly-vc/philly.csv");
  const auto nodes = testing::TraceFileOrEmpty("alibaba-gpu-2023/openb_node_list_gpu_node.csv");
  if (philly.empty() || nodes.empty()) GTEST_SKIP() << "traces not found under " << TraceDir();
  EXPECT_EQ(LoadPhillyTrace(philly).size(), 82247u);
  const auto alibaba = LoadAlibabaNodes(nodes);
  EXPECT_EQ(alibaba.size(), 1213u);
}

}  // namespace
}  // namespace gpupool::replay
