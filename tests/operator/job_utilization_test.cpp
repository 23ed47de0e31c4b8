// A job's utilization from DCGM readings: its pods' own series, or for a
// fraction the series of the device it shares, whichever pod the exporter names.
#include "operator/job_utilization.h"

#include <gtest/gtest.h>

namespace gpupool::op {
namespace {

PodView RunningPod(const std::string& name, const std::string& node,
                   const std::string& device = "") {
  PodView pod;
  pod.ns = "ana";
  pod.name = name;
  pod.node = node;
  pod.gpu_device = device;
  pod.phase = PodPhase::kRunning;
  return pod;
}

utilization::Readings Exporter() {
  utilization::Readings readings;
  readings.available = true;
  readings.Add({"node-0", "0", "GPU-a", "ana", "train-0", "main", 80});
  // Device 1 is held by a reservation pod; the fractions on it are not named.
  readings.Add({"node-0", "1", "GPU-b", "gpupool", "gpupool-reservation-node-0-1", "hold", 35});
  readings.Add({"node-1", "1", "GPU-c", "", "", "", 0});
  return readings;
}

TEST(JobUtilization, APodReadsItsOwnSeries) {
  const PodView pod = RunningPod("train-0", "node-0");
  const auto measured = UtilizationOf(Exporter(), {&pod});
  ASSERT_TRUE(measured);
  EXPECT_DOUBLE_EQ(measured->mean_percent, 80);
  EXPECT_TRUE(measured->complete);
}

TEST(JobUtilization, AFractionReadsTheDeviceItSharesByIndexOrUuid) {
  const auto readings = Exporter();
  for (const std::string device : {"1", "GPU-b"}) {
    const PodView pod = RunningPod("notebook-0", "node-0", device);
    const auto measured = UtilizationOf(readings, {&pod});
    ASSERT_TRUE(measured) << device;
    EXPECT_DOUBLE_EQ(measured->max_percent, 35) << device;
    EXPECT_TRUE(measured->complete) << device;
  }
}

TEST(JobUtilization, AFractionOnAnUnreportedDeviceHasNoReading) {
  const auto readings = Exporter();
  const PodView elsewhere = RunningPod("notebook-0", "node-1", "0");
  EXPECT_FALSE(UtilizationOf(readings, {&elsewhere}));
  const PodView whole = RunningPod("train-0", "node-0");
  const auto partly = UtilizationOf(readings, {&whole, &elsewhere});
  ASSERT_TRUE(partly);
  EXPECT_FALSE(partly->complete);
}

}  // namespace
}  // namespace gpupool::op
