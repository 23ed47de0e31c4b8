// Checkpoint-aware reclaim on every backend: of Susan's eight jobs, the one that
// saves its state when stopped (spec.checkpoint.onPreemption) loses nothing, so
// Joe's reclaim stops it first; its new pod is told where to resume from. The other
// job stopped, which declares no checkpoint, restarts as before: its new pod counts
// the restart but is given nothing to resume from.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "cluster_harness.h"

namespace gpupool::op::testing {
namespace {

class CheckpointOnBackend : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { SKIP_WITHOUT_BACKEND(GetParam()); }
};

constexpr char kResumable[] = "  checkpoint: {onPreemption: true, path: /ckpt/resumable}\n";

int PreemptionCount(const Json& jobs, const std::string& name) {
  for (const Json& job : jobs)
    if (job["metadata"]["name"] == name)
      return job.value("status", Json::object()).value("preemptionCount", 0);
  return -1;
}

// The environment of Susan's pod `name`'s first container, "" for a missing variable;
// empty when no such pod exists.
std::map<std::string, std::string> EnvOf(const Json& pods, const std::string& name) {
  std::map<std::string, std::string> env;
  for (const Json& pod : pods) {
    if (pod["metadata"]["namespace"] != "susan" || pod["metadata"]["name"] != name) continue;
    for (const Json& variable : pod["spec"]["containers"][0].value("env", Json::array()))
      env[variable.value("name", "")] = variable.value("value", "");
  }
  return env;
}

// Whether the job's status shows it over its project's quota.
bool ShownOver(const Json& jobs, const std::string& name) {
  for (const Json& job : jobs)
    if (job["metadata"]["name"] == name)
      return job.value("status", Json::object()).value("overQuota", false);
  return false;
}

TEST_P(CheckpointOnBackend, AJobThatSavesWhenStoppedIsReclaimedFirstAndResumes) {
  // A full cycle every 2 s: the standing follows the work each job would lose soon
  // after they start (jobs started in one second lose the same, nothing, at first).
  ClusterHarness cluster(kStoryNodes, {}, {"--full-cycle-seconds", "2"}, GetParam());
  cluster.Apply(kStory1Projects);
  std::string jobs = TrainJobYaml("susan", "resumable", 900, "train", kResumable);
  for (int i = 1; i <= 7; ++i) jobs += TrainJobYaml("susan", "sweep-" + std::to_string(i), 900);
  cluster.Apply(jobs);
  // Once the others have run a moment, the job that loses nothing is shown over quota
  // (the controller looks again at each full cycle while Susan runs over her quota).
  ASSERT_TRUE(cluster.WaitFor(15, [&](const Json& all) {
    return CountPhase(all, "susan", "Running") == 8 && ShownOver(all, "resumable");
  })) << cluster.ControllerLog();
  // Time is counted in seconds: the others have lost work by Joe's reclaim.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_EQ(EnvOf(cluster.Get("pods"), "resumable-0")["GPUPOOL_CHECKPOINT_PATH"],
            "/ckpt/resumable");
  cluster.Apply(TrainJobYaml("joe", "bert-1", 600) + TrainJobYaml("joe", "bert-2", 600));
  ASSERT_TRUE(cluster.WaitFor(10, [&](const Json& all) {
    return CountPhase(all, "joe", "Running") == 2;
  })) << cluster.ControllerLog();
  const Json all = cluster.Get("trainingjobs");
  EXPECT_EQ(PreemptionCount(all, "resumable"), 1);
  std::string restarted;  // The other job Joe's reclaim stopped.
  for (int i = 1; i <= 7; ++i) {
    const std::string name = "sweep-" + std::to_string(i);
    if (PreemptionCount(all, name) == 1) restarted = name;
  }
  ASSERT_NE(restarted, "") << all.dump();
  // Their pods are replaced (gated until they are admitted again), each told what
  // it resumes from, if anything.
  std::map<std::string, std::string> resumed, plain;
  ASSERT_TRUE(cluster.WaitFor(10, [&](const Json&) {
    const Json pods = cluster.Get("pods");
    resumed = EnvOf(pods, "resumable-0");
    plain = EnvOf(pods, restarted + "-0");
    return resumed["GPUPOOL_PREEMPTION_COUNT"] == "1" && plain["GPUPOOL_PREEMPTION_COUNT"] == "1";
  })) << cluster.ControllerLog();
  EXPECT_EQ(resumed["GPUPOOL_RESUME_FROM"], "/ckpt/resumable");
  EXPECT_EQ(resumed["GPUPOOL_RESTART_COUNT"], "1");
  EXPECT_EQ(plain.count("GPUPOOL_RESUME_FROM"), 0u);
  EXPECT_EQ(plain["GPUPOOL_RESTART_COUNT"], "1");
  EXPECT_EQ(cluster.CheckDevices(), "");
}

INSTANTIATE_TEST_SUITE_P(All, CheckpointOnBackend,
                         ::testing::ValuesIn(backends::testing::Backends()), [](const auto& info) {
                           return backends::testing::BackendTestName(info.param);
                         });

}  // namespace
}  // namespace gpupool::op::testing
