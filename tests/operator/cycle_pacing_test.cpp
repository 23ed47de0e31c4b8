// The controller loop against a real `gpupool sandbox`: after a cycle, the next
// waits for its pause in proportion to the planning time (pause_per_plan).
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "gpupool/kube/config.h"
#include "gpupool/operator/controller.h"
#include "sandbox_process.h"

namespace gpupool::op {
namespace {

using Clock = std::chrono::steady_clock;
using sandbox::testing::SandboxProcess;

struct CycleSeen {
  double plan_ms = 0;
  Clock::time_point ended;
};

class CycleLog {
 public:
  void Add(const CycleReport& report) {
    std::lock_guard lock(mutex_);
    cycles_.push_back({report.plan_ms, Clock::now()});
  }
  // Waits up to `timeout` for at least `count` cycles; a copy of those seen.
  std::vector<CycleSeen> WaitFor(std::size_t count, std::chrono::seconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      {
        std::lock_guard lock(mutex_);
        if (cycles_.size() >= count) return cycles_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::lock_guard lock(mutex_);
    return cycles_;
  }

 private:
  std::mutex mutex_;
  std::vector<CycleSeen> cycles_;
};

TEST(CyclePacing, TheNextCycleWaitsInProportionToTheLastOnesPlanning) {
  SandboxProcess sandbox({"--nodes", "1x8:pool=train"});
  ASSERT_EQ(sandbox.Kubectl(std::string("apply -f ") + GPUPOOL_SOURCE_DIR + "/crds").exit_code, 0);
  ASSERT_EQ(sandbox.Kubectl("wait --for=condition=Established crd --all --timeout=30s").exit_code,
            0);
  kube::Client client(kube::LoadKubeconfig({sandbox.kubeconfig()}));
  CycleLog log;
  ControllerOptions options;
  options.pause_per_plan = 5000;
  options.on_cycle = [&](const CycleReport& report) { log.Add(report); };
  Controller controller(client, nullptr, options);
  ASSERT_TRUE(controller.Start(std::chrono::seconds(30)));
  std::atomic<bool> stop{false};
  std::thread loop([&] { controller.Run(stop); });
  const auto first = log.WaitFor(1, std::chrono::seconds(30));
  controller.Notify();  // Due at once but for the pause.
  const auto both = log.WaitFor(2, std::chrono::seconds(60));
  stop = true;
  loop.join();
  ASSERT_EQ(first.size(), 1u);
  ASSERT_GE(both.size(), 2u);
  const double pause_ms = first[0].plan_ms * options.pause_per_plan;
  const double gap_ms =
      std::chrono::duration<double, std::milli>(both[1].ended - both[0].ended).count();
  EXPECT_GE(gap_ms, pause_ms) << "the first cycle planned for " << first[0].plan_ms << " ms";
  EXPECT_GT(pause_ms, 2.0 * options.quiet.count()) << "a pause the test can tell from none";
}

}  // namespace
}  // namespace gpupool::op
