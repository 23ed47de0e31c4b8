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

// `gpupool <arguments>` on the cluster; --kubeconfig goes before a " -- " (what
// follows it is the job's command).
CommandResult Gpupool(ClusterHarness& cluster, const std::string& arguments) {
  const std::string flag = " --kubeconfig " + cluster.kubeconfig();
  std::string command = std::string(GPUPOOL_BINARY) + " " + arguments;
  const auto dashes = command.find(" -- ");
  command.insert(dashes == std::string::npos ? command.size() : dashes, flag);
  return RunCommand(command + " 2>&1");
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

  // A job that does not exist is named, with the command that lists those that do.
  for (const char* command : {"describe", "logs", "suspend", "resume", "delete"}) {
    const auto missing = Gpupool(cluster, std::string(command) + " no-such-job -n susan");
    EXPECT_EQ(missing.exit_code, 1) << missing.output;
    EXPECT_NE(missing.output.find(std::string("gpupool ") + command +
                                  ": no TrainingJob named no-such-job in namespace susan "
                                  "(gpupool list -n susan lists its jobs)"),
              std::string::npos)
        << missing.output;
  }
}

// A researcher's session: submit and wait until it runs, a refusal that
// creates nothing, the project and queue figures, the job's logs, suspend
// (its pods stop, its GPUs go back) and resume, delete.
TEST_P(JobsCliOnBackend, SubmitRunsAndRefusesWhatCouldNeverRun) {
  ClusterHarness cluster(kStoryNodes, {}, {}, GetParam());
  cluster.Apply(kStory1Projects);
  const auto submitted = Gpupool(cluster,
                                 "submit bert --project joe --gpus 1 --image busybox --wait "
                                 "--timeout 60 -- sleep 600");
  ASSERT_EQ(submitted.exit_code, 0) << submitted.output << cluster.ControllerLog();
  EXPECT_NE(submitted.output.find("trainingjob.gpupool.dev/bert created in namespace joe "
                                  "(project joe, queue train)"),
            std::string::npos)
      << submitted.output;
  EXPECT_NE(submitted.output.find("bert: Running"), std::string::npos) << submitted.output;

  const auto unknown = Gpupool(cluster, "submit gpt --project jeo --gpus 1 --image busybox");
  EXPECT_EQ(unknown.exit_code, 1) << unknown.output;
  EXPECT_NE(unknown.output.find("no project named jeo (did you mean joe?)"), std::string::npos)
      << unknown.output;
  const auto too_big =
      Gpupool(cluster, "submit gpt --project joe --gpus 8 --replicas 2 --image busybox");
  EXPECT_EQ(too_big.exit_code, 1) << too_big.output;
  EXPECT_NE(too_big.output.find("16 GPUs is more than the 8 GPUs of queue train's nodes"),
            std::string::npos)
      << too_big.output;
  EXPECT_EQ(cluster.Get("trainingjobs").size(), 1u) << "a refusal created a job";

  const auto projects = Gpupool(cluster, "projects joe -o json");
  ASSERT_EQ(projects.exit_code, 0) << projects.output;
  const Json rows = Json::parse(projects.output);
  ASSERT_EQ(rows.size(), 1u) << projects.output;
  EXPECT_EQ(rows[0]["allocated"], "1") << projects.output;
  EXPECT_EQ(rows[0]["runningJobs"], 1) << projects.output;
  const auto queues = Gpupool(cluster, "queues train");
  EXPECT_EQ(queues.exit_code, 0) << queues.output;
  EXPECT_NE(queues.output.find("Guaranteed"), std::string::npos) << queues.output;
  // The API server keeps the status field submit reads for one replica's size.
  int trains = 0;
  for (const Json& queue : cluster.Get("queues")) {
    if (queue["metadata"]["name"] != "train") continue;
    ++trains;
    EXPECT_EQ(queue["status"].value("largestNode", Json()), 8) << queue.dump();
  }
  EXPECT_EQ(trains, 1);

  const auto logs = Gpupool(cluster, "logs bert -n joe");
  if (GetParam() == "sandbox") {
    EXPECT_EQ(logs.exit_code, 0) << logs.output;
    EXPECT_NE(logs.output.find("pod joe/bert-0 is simulated; phase Running"), std::string::npos)
        << logs.output;
  } else {  // No kubelet serves logs: the API server's answer is passed on.
    EXPECT_EQ(logs.exit_code, 1) << logs.output;
    EXPECT_EQ(logs.output.rfind("gpupool logs: ", 0), 0u) << logs.output;
  }

  const auto suspended = Gpupool(cluster, "suspend bert -n joe");
  EXPECT_EQ(suspended.exit_code, 0) << suspended.output;
  ASSERT_TRUE(cluster.WaitFor(60, [&](const Json& jobs) {
    return CountPhase(jobs, "joe", "Suspended") == 1 && cluster.Get("pods -n joe").empty();
  })) << cluster.ControllerLog();
  const auto listed = Gpupool(cluster, "list -n joe -o wide");
  EXPECT_NE(listed.output.find("suspended (spec.suspend)"), std::string::npos) << listed.output;
  const auto joe = Gpupool(cluster, "projects joe -o json");
  EXPECT_EQ(Json::parse(joe.output)[0]["allocated"], "0") << joe.output;
  const auto resumed = Gpupool(cluster, "resume bert -n joe");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_TRUE(cluster.WaitFor(60, [](const Json& jobs) {
    return CountPhase(jobs, "joe", "Running") == 1;
  })) << cluster.ControllerLog();

  const auto deleted = Gpupool(cluster, "delete bert -n joe");
  EXPECT_EQ(deleted.exit_code, 0) << deleted.output;
  EXPECT_NE(deleted.output.find("trainingjob.gpupool.dev \"bert\" deleted"), std::string::npos);
  EXPECT_TRUE(cluster.Get("trainingjobs").empty());
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
