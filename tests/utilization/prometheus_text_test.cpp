// The exposition format reader against real exporter pages and hostile ones:
// every malformed line is skipped and counted, the good ones still count.
#include "utilization/prometheus_text.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpupool::utilization {
namespace {

// Two lines as dcgm-exporter 3.x writes them: an idle device without a pod,
// and a device a notebook pod holds.
constexpr char kExporterPage[] =
    "# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).\n"
    "# TYPE DCGM_FI_DEV_SM_CLOCK gauge\n"
    "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",UUID=\"GPU-a\",device=\"nvidia0\",Hostname=\"node-0\"} 1410\n"
    "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
    "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
    "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",pci_bus_id=\"00000000:01:00.0\","
    "device=\"nvidia0\",modelName=\"NVIDIA A100-SXM4-80GB\",Hostname=\"node-0\","
    "DCGM_FI_DRIVER_VERSION=\"550.54.15\",container=\"\",namespace=\"\",pod=\"\"} 0\n"
    "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-b\",pci_bus_id=\"00000000:02:00.0\","
    "device=\"nvidia1\",modelName=\"NVIDIA A100-SXM4-80GB\",Hostname=\"node-0\","
    "DCGM_FI_DRIVER_VERSION=\"550.54.15\",container=\"main\",namespace=\"ana\","
    "pod=\"notebook-0\"} 37\n";

TEST(PrometheusText, ReadsTheExportersPage) {
  const Readings readings = ReadingsFromText(kExporterPage, 1000);
  ASSERT_TRUE(readings.available) << readings.problem;
  ASSERT_EQ(readings.gpus.size(), 2u);
  EXPECT_EQ(readings.malformed_lines, 0u);
  const GpuReading& used = readings.gpus[1];
  EXPECT_EQ(used.node, "node-0");
  EXPECT_EQ(used.gpu, "1");
  EXPECT_EQ(used.uuid, "GPU-b");
  EXPECT_EQ(used.container, "main");
  EXPECT_DOUBLE_EQ(used.percent, 37);
  const auto* of_pod = readings.OfPod("ana", "notebook-0");
  ASSERT_NE(of_pod, nullptr);
  EXPECT_EQ(*of_pod, std::vector<std::size_t>{1});
  EXPECT_EQ(readings.OfPod("", ""), nullptr);  // A device without a pod is nobody's.
  EXPECT_EQ(readings.read_at, 1000);
}

TEST(PrometheusText, ThroughAFederatingPrometheusTheExportedLabelsNameThePod) {
  const Readings readings = ReadingsFromText(
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"n\",namespace=\"monitoring\","
      "pod=\"dcgm-exporter-x\",exported_namespace=\"ana\",exported_pod=\"nb-0\"} 12 "
      "1700000000000\n",
      0);
  ASSERT_TRUE(readings.available);
  EXPECT_NE(readings.OfPod("ana", "nb-0"), nullptr);
  EXPECT_EQ(readings.OfPod("monitoring", "dcgm-exporter-x"), nullptr);
}

TEST(PrometheusText, EscapesCrlfAndSpacingAreRead) {
  const ParsedSamples parsed = ParseSamples(
      "m{a=\"x\\\"y\\\\z\\n\" , b=\"\",} 1.5e1\r\n"
      "  m 2\n"
      "m{} +Inf\n"
      "m_other 3\n",
      "m");
  ASSERT_EQ(parsed.samples.size(), 3u) << parsed.first_problem;
  EXPECT_EQ(parsed.samples[0].Label({"a"}), "x\"y\\z\n");
  EXPECT_DOUBLE_EQ(parsed.samples[0].value, 15);
  EXPECT_DOUBLE_EQ(parsed.samples[1].value, 2);
  EXPECT_TRUE(std::isinf(parsed.samples[2].value));
}

struct BadLine {
  const char* line;
  const char* problem;
};

// Named by its problem in test listings (ctest -N), not by its bytes.
void PrintTo(const BadLine& bad, std::ostream* out) { *out << bad.problem; }

class MalformedLine : public ::testing::TestWithParam<BadLine> {};

TEST_P(MalformedLine, IsSkippedAndCountedWhileTheRestIsRead) {
  const std::string page =
      std::string("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",pod=\"a\",namespace=\"n\"} 5\n") +
      GetParam().line + "\n" + "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",pod=\"b\",namespace=\"n\"} 6\n";
  const Readings readings = ReadingsFromText(page, 0);
  EXPECT_TRUE(readings.available);
  EXPECT_EQ(readings.gpus.size(), 2u);
  EXPECT_EQ(readings.malformed_lines, 1u);
  EXPECT_NE(readings.first_problem.find(GetParam().problem), std::string::npos)
      << readings.first_problem;
}

INSTANTIATE_TEST_SUITE_P(
    PrometheusText, MalformedLine,
    ::testing::Values(BadLine{"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\" 5", "separated by ,"},
                      BadLine{"DCGM_FI_DEV_GPU_UTIL{gpu=0} 5", "quoted value"},
                      BadLine{"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\\x\"} 5", "valid escapes"},
                      BadLine{"DCGM_FI_DEV_GPU_UTIL{9gpu=\"0\"} 5", "label name"},
                      BadLine{"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"}", "space must separate"},
                      BadLine{"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} busy", "not a number"},
                      BadLine{"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5 later", "timestamp"},
                      BadLine{"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5 17 extra", "after the value"},
                      BadLine{"{gpu=\"0\"} 5", "metric name"},
                      BadLine{"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 250", "outside 0..100"},
                      BadLine{"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} NaN", "outside 0..100"},
                      BadLine{"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} -3", "outside 0..100"},
                      BadLine{"DCGM_FI_DEV_GPU_UTIL{gpu=\"unterminated", "quoted value"}));

TEST(PrometheusText, APageWithoutTheMetricIsUnavailableAndSaysWhy) {
  for (const char* page : {"", "up 1\n", "# only comments\n", "\x01\x02\xff garbage\n"}) {
    const Readings readings = ReadingsFromText(page, 0);
    EXPECT_FALSE(readings.available) << page;
    EXPECT_NE(readings.problem.find("no DCGM_FI_DEV_GPU_UTIL sample"), std::string::npos)
        << readings.problem;
  }
  const Readings invalid = ReadingsFromText("DCGM_FI_DEV_GPU_UTIL 900\n", 0);
  EXPECT_FALSE(invalid.available);
  EXPECT_NE(invalid.problem.find("no valid"), std::string::npos);
}

TEST(PrometheusText, AHugePageOfOtherMetricsIsReadLineByLine) {
  std::string page;
  for (int i = 0; i < 200'000; ++i) page += "other_metric{i=\"" + std::to_string(i) + "\"} 1\n";
  page += "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",pod=\"p\",namespace=\"n\"} 3\n";
  const Readings readings = ReadingsFromText(page, 0);
  ASSERT_TRUE(readings.available);
  EXPECT_EQ(readings.gpus.size(), 1u);
}

}  // namespace
}  // namespace gpupool::utilization
