// The simulated DCGM exporter's page: one row per device and pod using it, the
// exporter's labels, utilization from the pods' annotation.
#include "sandbox/nodes/dcgm_exporter.h"

#include <gtest/gtest.h>

#include "sandbox/nodes/device_plugin.h"

namespace gpupool::sandbox {
namespace {

using Json = nlohmann::json;

Json Node(const std::string& name, int gpus) {
  return {{"metadata", {{"name", name}, {"labels", {{"gpu", "A100"}}}}},
          {"status", {{"allocatable", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}};
}

Json Pod(const std::string& name, const std::string& phase, int gpus, const std::string& percent,
         const std::string& device = "") {
  Json annotations = Json::object();
  if (!percent.empty()) annotations[kUtilizationAnnotation] = percent;
  if (!device.empty()) annotations["gpupool.dev/gpu-device"] = device;
  Json resources = Json::object();
  if (gpus > 0) resources = {{"limits", {{"nvidia.com/gpu", std::to_string(gpus)}}}};
  return {
      {"metadata", {{"name", name}, {"namespace", "ana"}, {"annotations", annotations}}},
      {"spec",
       {{"nodeName", "node-0"}, {"containers", {{{"name", "main"}, {"resources", resources}}}}}},
      {"status", {{"phase", phase}}}};
}

std::vector<std::string> Rows(const std::string& page) {
  std::vector<std::string> rows;
  std::size_t start = 0;
  while (start < page.size()) {
    const std::size_t end = page.find('\n', start);
    const std::string line = page.substr(start, end - start);
    if (line.rfind("DCGM_FI_DEV_GPU_UTIL{", 0) == 0) rows.push_back(line);
    start = end + 1;
  }
  return rows;
}

TEST(DcgmExporter, EveryDeviceWithItsPodsAndTheirUtilization) {
  const std::string page = DcgmExposition(
      {Node("node-0", 4)}, {Pod("a", "Running", 2, "30"), Pod("b", "Running", 0, "20", "3"),
                            Pod("c", "Running", 0, "90", "3"), Pod("d", "Pending", 1, "50"),
                            Pod("e", "Running", 1, "")});
  EXPECT_NE(page.find("# TYPE DCGM_FI_DEV_GPU_UTIL gauge"), std::string::npos);
  const auto rows = Rows(page);
  ASSERT_EQ(rows.size(), 5u) << page;
  // a takes the first two free devices, e (no annotation: busy) the next.
  EXPECT_NE(rows[0].find("gpu=\"0\""), std::string::npos);
  EXPECT_NE(rows[0].find("pod=\"a\"} 30"), std::string::npos) << rows[0];
  EXPECT_NE(rows[1].find("gpu=\"1\""), std::string::npos);
  EXPECT_NE(rows[1].find("pod=\"a\"} 30"), std::string::npos) << rows[1];
  EXPECT_NE(rows[2].find("pod=\"e\"} 100"), std::string::npos) << rows[2];
  // b and c share device 3, which is as busy as both together (at most 100%).
  EXPECT_NE(rows[3].find("gpu=\"3\""), std::string::npos);
  EXPECT_NE(rows[3].find("pod=\"b\"} 100"), std::string::npos) << rows[3];
  EXPECT_NE(rows[4].find("pod=\"c\"} 100"), std::string::npos) << rows[4];
  for (const char* label : {"UUID=\"GPU-", "pci_bus_id=", "device=\"nvidia", "modelName=\"A100\"",
                            "Hostname=\"node-0\"", "namespace=\"ana\"", "container=\"main\""})
    EXPECT_NE(rows[0].find(label), std::string::npos) << label;
}

// Devices the device plugin reported are the pod's; a reservation holding a
// device that fractions share is not reported on it, the fractions are.
TEST(DcgmExporter, ReportedDevicesAreUsedAndReservationsStayOutOfSharedDevices) {
  Json whole = Pod("whole", "Running", 1, "40");
  whole["metadata"]["annotations"][kVisibleDevicesAnnotation] = "2";
  Json reservation = Pod("reservation", "Running", 1, "");
  reservation["metadata"]["annotations"][kVisibleDevicesAnnotation] = "1";
  const auto rows = Rows(DcgmExposition(
      {Node("node-0", 3)}, {whole, reservation, Pod("half", "Running", 0, "25", "1")}));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_NE(rows[0].find("pod=\"\"} 0"), std::string::npos) << rows[0];
  EXPECT_NE(rows[1].find("gpu=\"1\""), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find("pod=\"half\"} 25"), std::string::npos) << rows[1];
  EXPECT_NE(rows[2].find("gpu=\"2\""), std::string::npos) << rows[2];
  EXPECT_NE(rows[2].find("pod=\"whole\"} 40"), std::string::npos) << rows[2];
}

TEST(DcgmExporter, AnUnusedDeviceReportsNoPodAndZero) {
  const auto rows = Rows(DcgmExposition({Node("node-0", 1), Node("cpu-only", 0)}, {}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NE(rows[0].find("container=\"\",namespace=\"\",pod=\"\"} 0"), std::string::npos)
      << rows[0];
}

}  // namespace
}  // namespace gpupool::sandbox
