// `gpupool list` and `gpupool describe` on every backend, as a researcher runs
// them: Susan's nine jobs on the eight-GPU train pool, one of which waits. What
// the commands say is what the jobs' statuses say; `list -o json` parses; the
// same binary works as a kubectl plugin through the real kubectl.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "cluster_harness.h"
#include "sandbox_process.h"

namespace gpupool::op::testing {
namespace {

using sandbox::testing::CommandResult;
using sandbox::testing::RunCommand;

class JobsCliOnBackend : public ::testing::TestWithParam<std::string> {};

CommandResult Gpupool(ClusterHarness& cluster, const std::string& arguments) {
  return RunCommand(std::string(GPUPOOL_BINARY) + " " + arguments + " --kubeconfig " +
                    cluster.kubeconfig() + " 2>&1");
}

const Json* FindJob(const Json& jobs, const std::string& name) {
  for (const Json& job : jobs)
    if (job["metadata"]["name"] == name) return &job;
  return nullptr;
}

std::string AdmittedMessage(const Json& job) {
  for (const Json& condition : job["status"].value("conditions", Json::array()))
    if (condition.value("type", "") == "Admitted") return condition.value("message", "");
  return "";
}

// A quantity as the status holds it: "0.5" as written, 2 as "2".
std::string QuantityText(const Json& quantity) {
  return quantity.is_string() ? quantity.get<std::string>() : quantity.dump();
}

// Each row of `gpupool list -o json` against the job's status, "" when all agree.
std::string CompareListWithStatuses(const Json& rows, const Json& jobs) {
  std::string differences;
  for (const Json& row : rows) {
    const Json* job = FindJob(jobs, row["name"]);
    if (!job) {
      differences += "no job " + row["name"].dump() + "\n";
      continue;
    }
    const Json& status = (*job)["status"];
    if (row["phase"] != status.value("phase", "") ||
        row["overQuota"] != status.value("overQuota", false) ||
        row["gpus"] != QuantityText(status.value("requestedGpu", Json(""))) ||
        row["reason"] != AdmittedMessage(*job))
      differences += row.dump() + " against " + status.dump() + "\n";
  }
  return differences;
}

TEST_P(JobsCliOnBackend, ListAndDescribeSayWhatTheStatusesSay) {
  ClusterHarness cluster(kStoryNodes, {}, {}, GetParam());
  cluster.Apply(kStory1Projects);
  std::string jobs_yaml;
  for (int i = 1; i <= 9; ++i)
    jobs_yaml += TrainJobYaml("susan", "sweep-" + std::to_string(i), 900);
  cluster.Apply(jobs_yaml);
  ASSERT_TRUE(cluster.WaitFor(60, [](const Json& jobs) {
    return CountPhase(jobs, "susan", "Running") == 8 && CountPhase(jobs, "susan", "Queued") == 1;
  })) << cluster.ControllerLog();

  std::string differences = "not compared";
  for (int attempt = 0; attempt < 20 && !differences.empty(); ++attempt) {
    const auto listed = Gpupool(cluster, "list -n susan -o json");
    ASSERT_EQ(listed.exit_code, 0) << listed.output;
    const Json rows = Json::parse(listed.output);
    ASSERT_EQ(rows.size(), 9u) << listed.output;
    differences = CompareListWithStatuses(rows, cluster.Get("trainingjobs -n susan"));
    if (!differences.empty()) sleep(1);
  }
  EXPECT_EQ(differences, "");

  const Json jobs = cluster.Get("trainingjobs -n susan");
  std::string waiting;
  for (const Json& job : jobs)
    if (job["status"].value("phase", "") == "Queued") waiting = job["metadata"]["name"];
  ASSERT_FALSE(waiting.empty());
  const auto described = Gpupool(cluster, "describe " + waiting + " -n susan");
  ASSERT_EQ(described.exit_code, 0) << described.output;
  EXPECT_NE(described.output.find("Why:          " + AdmittedMessage(*FindJob(jobs, waiting))),
            std::string::npos)
      << described.output;
  EXPECT_NE(described.output.find("Status:       Queued"), std::string::npos) << described.output;

  const auto table = Gpupool(cluster, "list -A -o wide");
  EXPECT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("NAMESPACE"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find(AdmittedMessage(*FindJob(jobs, waiting))), std::string::npos)
      << table.output;

  const auto missing = Gpupool(cluster, "describe no-such-job -n susan");
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_NE(missing.output.find("not found"), std::string::npos) << missing.output;
}

// kubectl runs `kubectl-gpupool` from PATH for `kubectl gpupool`.
TEST_P(JobsCliOnBackend, WorksAsAKubectlPlugin) {
  ClusterHarness cluster(kStoryNodes, {}, {}, GetParam());
  cluster.Apply(kStory1Projects);
  cluster.Apply(TrainJobYaml("susan", "sweep-1", 900));
  ASSERT_TRUE(cluster.WaitFor(60, [](const Json& jobs) {
    return CountPhase(jobs, "susan", "Running") == 1;
  })) << cluster.ControllerLog();
  const auto dir =
      std::filesystem::path(cluster.WriteFile("plugins.txt", "")).parent_path() / "plugins";
  std::filesystem::create_directories(dir);
  std::filesystem::create_symlink(GPUPOOL_BINARY, dir / "kubectl-gpupool");
  const auto listed = RunCommand("PATH=" + dir.string() + ":$PATH kubectl gpupool list -n susan" +
                                 " --kubeconfig " + cluster.kubeconfig() + " 2>&1");
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_NE(listed.output.find("sweep-1"), std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find("Running"), std::string::npos) << listed.output;
}

INSTANTIATE_TEST_SUITE_P(All, JobsCliOnBackend, ::testing::ValuesIn(backends::testing::Backends()),
                         [](const auto& info) {
                           return backends::testing::BackendTestName(info.param);
                         });

}  // namespace
}  // namespace gpupool::op::testing
