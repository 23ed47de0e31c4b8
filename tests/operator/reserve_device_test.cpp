// `gpupool reserve-device`, what reservation pods run, as a process: `report`
// writes the device the device plugin named to the termination log (what the
// kubelet publishes in the pod's status) and exits; `hold` holds until stopped;
// an environment that names no device, a bad mode or flag, and a log it cannot
// write are refused, naming what is wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "sandbox_process.h"

namespace gpupool::op {
namespace {

using sandbox::testing::CommandResult;
using sandbox::testing::RunCommand;
using ::testing::HasSubstr;

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::string text;
  std::getline(file, text);
  return text;
}

class ReserveDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gpupool-reserve-device-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  CommandResult Report(const std::string& devices, const std::string& log) {
    const std::string env = devices == "unset" ? "" : "NVIDIA_VISIBLE_DEVICES='" + devices + "' ";
    return RunCommand("env -u NVIDIA_VISIBLE_DEVICES " + env + GPUPOOL_BINARY +
                      " reserve-device report --termination-log " + log + " 2>&1");
  }

  std::string dir_;
};

TEST_F(ReserveDevice, ReportWritesTheDeviceToTheTerminationLogAndExits) {
  const CommandResult result = Report("GPU-5f2e", dir_ + "/termination-log");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(ReadFile(dir_ + "/termination-log"), "GPU-5f2e");
}

TEST_F(ReserveDevice, ReportRefusesAnEnvironmentThatNamesNoDevice) {
  for (const char* devices : {"unset", "", "void", "none", "all"}) {
    const CommandResult result = Report(devices, dir_ + "/termination-log");
    EXPECT_EQ(result.exit_code, 2) << devices;
    EXPECT_THAT(result.output, HasSubstr("NVIDIA_VISIBLE_DEVICES names no device")) << devices;
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/termination-log")) << devices;
  }
}

TEST_F(ReserveDevice, ReportSaysWhenItCannotWriteTheLog) {
  const CommandResult result = Report("0", dir_ + "/no-such-dir/termination-log");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.output, HasSubstr("cannot write " + dir_ + "/no-such-dir/termination-log"));
}

TEST_F(ReserveDevice, BadModesAndFlagsAreUsageErrors) {
  for (const std::string arguments : {"", "steal", "hold --termination-log x", "report --x"}) {
    const CommandResult result =
        RunCommand(std::string(GPUPOOL_BINARY) + " reserve-device " + arguments + " 2>&1");
    EXPECT_EQ(result.exit_code, 2) << arguments;
    EXPECT_THAT(result.output, HasSubstr("Usage: gpupool reserve-device")) << arguments;
  }
}

TEST_F(ReserveDevice, HoldRunsUntilStopped) {
  RunCommand("(" + std::string(GPUPOOL_BINARY) + " reserve-device hold >" + dir_ +
             "/hold.log 2>&1 & echo $! >" + dir_ + "/hold.pid; wait $!; echo $? >" + dir_ +
             "/hold.rc) >/dev/null 2>&1 &");
  std::string pid;
  for (int i = 0; i < 50 && pid.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    pid = ReadFile(dir_ + "/hold.pid");
  }
  ASSERT_FALSE(pid.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_TRUE(ReadFile(dir_ + "/hold.rc").empty()) << "it must hold the device until stopped";
  RunCommand("kill -TERM " + pid);
  std::string status;
  for (int i = 0; i < 50 && status.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    status = ReadFile(dir_ + "/hold.rc");
  }
  EXPECT_EQ(status, "0") << ReadFile(dir_ + "/hold.log");
}

}  // namespace
}  // namespace gpupool::op
