// `gpupool reserve-device`, what reservation pods run, against a real sandbox:
// it reports its device in its own pod's annotation and holds it until stopped;
// an environment that names no pod or no device is refused, naming what is missing.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "sandbox_process.h"

namespace gpupool::op {
namespace {

using sandbox::testing::CommandResult;
using sandbox::testing::RunCommand;
using sandbox::testing::SandboxProcess;

constexpr char kPod[] = R"(apiVersion: v1
kind: Pod
metadata: {name: holder, namespace: default}
spec:
  containers: [{name: reserve, image: gpupool}]
)";

std::string ReserveDevice(const std::string& env, const std::string& kubeconfig) {
  return "env -u NVIDIA_VISIBLE_DEVICES -u POD_NAME -u POD_NAMESPACE " + env + " " +
         GPUPOOL_BINARY + " reserve-device --kubeconfig " + kubeconfig;
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::string text;
  std::getline(file, text);
  return text;
}

TEST(ReserveDevice, ReportsItsDeviceOnItsOwnPodAndHoldsUntilStopped) {
  SandboxProcess sandbox;
  ASSERT_EQ(sandbox.Kubectl("apply -f " + sandbox.WriteFile("pod.yaml", kPod)).exit_code, 0);
  const std::string dir = sandbox.dir();
  const std::string command =
      ReserveDevice("POD_NAME=holder POD_NAMESPACE=default NVIDIA_VISIBLE_DEVICES=GPU-5f2e",
                    sandbox.kubeconfig());
  // In the background: its PID and, once it ends, its exit status go to files.
  RunCommand("(" + command + " >" + dir + "/reserve.log 2>&1 & echo $! >" + dir +
             "/reserve.pid; wait $!; echo $? >" + dir + "/reserve.rc) >/dev/null 2>&1 &");
  std::string reported;
  for (int i = 0; i < 100 && reported.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    reported = sandbox
                   .Kubectl(
                       "get pod holder -n default -o "
                       "'jsonpath={.metadata.annotations.gpupool\\.dev/visible-devices}'")
                   .output;
  }
  EXPECT_EQ(reported, "GPU-5f2e") << ReadFile(dir + "/reserve.log");
  const std::string pid = ReadFile(dir + "/reserve.pid");
  ASSERT_FALSE(pid.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(ReadFile(dir + "/reserve.rc").empty()) << "it must hold the device until stopped";
  RunCommand("kill -TERM " + pid);
  std::string status;
  for (int i = 0; i < 50 && status.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    status = ReadFile(dir + "/reserve.rc");
  }
  EXPECT_EQ(status, "0") << ReadFile(dir + "/reserve.log");
}

TEST(ReserveDevice, RefusesAnEnvironmentThatNamesNoPodOrNoDevice) {
  SandboxProcess sandbox;
  ASSERT_EQ(sandbox.Kubectl("apply -f " + sandbox.WriteFile("pod.yaml", kPod)).exit_code, 0);
  const std::string pod = "POD_NAME=holder POD_NAMESPACE=default ";
  struct Case {
    std::string env, named;
    int exit_code;
  };
  for (const Case& bad : std::vector<Case>{
           {pod, "NVIDIA_VISIBLE_DEVICES", 2},
           {pod + "NVIDIA_VISIBLE_DEVICES=void", "NVIDIA_VISIBLE_DEVICES", 2},
           {"POD_NAMESPACE=default NVIDIA_VISIBLE_DEVICES=0", "POD_NAME", 2},
           {"POD_NAME=holder NVIDIA_VISIBLE_DEVICES=0", "POD_NAMESPACE", 2},
           {"POD_NAME=gone POD_NAMESPACE=default NVIDIA_VISIBLE_DEVICES=0", "default/gone", 1}}) {
    const CommandResult result = RunCommand(ReserveDevice(bad.env, sandbox.kubeconfig()));
    EXPECT_EQ(result.exit_code, bad.exit_code) << bad.env << ": " << result.output;
    EXPECT_NE(result.output.find(bad.named), std::string::npos) << bad.env << ": " << result.output;
  }
}

}  // namespace
}  // namespace gpupool::op
