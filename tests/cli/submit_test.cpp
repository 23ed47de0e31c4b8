// What `gpupool submit` reads from its flags, where it puts a job, what it
// refuses before creating anything, and the waiting jobs' lines of `list`.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "job_rows.h"
#include "numeric_flag.h"
#include "object_check.h"
#include "submit_request.h"
#include "submit_target.h"

namespace gpupool::cli {
namespace {

using Json = nlohmann::json;

SubmitRequest Parse(std::vector<std::string> args) {
  return ParseSubmitFlags(Args(args.data(), args.size()));
}

std::vector<Json> Projects() {
  return {
      Json::parse(R"({"metadata": {"name": "susan"}, "spec": {"namespaces": ["susan", "susan-2"],
            "quotas": [{"queue": "train", "gpu": 2, "limit": 6}, {"queue": "build", "gpu": "0.5"}]}})"),
      Json::parse(R"({"metadata": {"name": "joe"}, "spec": {"namespaces": ["joe"],
            "quotas": [{"queue": "train", "gpu": 2}]}})")};
}

std::vector<Json> Queues() {
  return {Json::parse(R"({"metadata": {"name": "train"}, "spec": {"sharing": "Guaranteed"},
            "status": {"capacity": "8", "largestNode": "4"}})"),
          Json::parse(R"({"metadata": {"name": "build"}, "spec": {"sharing": "Fixed"}})")};
}

std::string Refusal(const std::vector<std::string>& args) {
  try {
    ResolveTarget(Parse(args), Projects(), Queues());
  } catch (const SubmitRefused& refused) {
    return refused.what();
  }
  return "";
}

TEST(Submit, TheFlagsMakeAValidTrainingJob) {
  const auto request =
      Parse({"bert",    "--project", "joe",      "--gpus=2",      "--replicas", "4",
             "--image", "pytorch:2", "--class",  "train",         "--priority", "5",
             "--env",   "LR=0.1",    "--volume", "data:/data:ro", "--topology", "rack:Required",
             "--",      "python",    "train.py"});
  const SubmitTarget target = ResolveTarget(request, Projects(), Queues());
  EXPECT_EQ(target.ns, "joe");
  EXPECT_EQ(target.queue, "train");
  const Json job = BuildTrainingJob(request, target.ns, target.queue);
  EXPECT_EQ(job["spec"]["replicas"], 4);
  EXPECT_EQ(job["spec"]["gpusPerReplica"], 2);
  EXPECT_EQ(job["spec"]["priority"], 5);
  EXPECT_EQ(job["spec"]["workloadClass"], "Train");
  EXPECT_EQ(job["spec"]["topology"], Json::parse(R"({"key": "rack", "mode": "Required"})"));
  const Json& pod = job["spec"]["template"]["spec"];
  EXPECT_EQ(pod["containers"][0]["command"], Json::parse(R"(["python", "train.py"])"));
  EXPECT_EQ(pod["containers"][0]["env"][0], Json::parse(R"({"name": "LR", "value": "0.1"})"));
  EXPECT_EQ(pod["containers"][0]["volumeMounts"][0]["readOnly"], true);
  EXPECT_EQ(pod["volumes"][0]["persistentVolumeClaim"]["claimName"], "data");
  for (const auto& check : CheckDocument(job))
    EXPECT_EQ(check.verdict, Verdict::kValid) << check.label << ": " << check.errors.size();
}

TEST(Submit, AFractionIsWrittenAsAString) {
  const auto request =
      Parse({"nb", "--project", "susan", "--queue", "build", "--gpus", "0.5", "--image", "x"});
  const Json job = BuildTrainingJob(request, "susan", "build");
  EXPECT_EQ(job["spec"]["gpusPerReplica"], "0.5");
  for (const auto& check : CheckDocument(job)) EXPECT_EQ(check.verdict, Verdict::kValid);
}

TEST(Submit, BadFlagsAreNamed) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--project", "joe", "--gpus", "1", "--image", "x"}, "NAME is missing"},
      {{"a", "--gpus", "1", "--image", "x"}, "--project is required"},
      {{"a", "--project", "joe", "--image", "x"}, "--gpus is required"},
      {{"a", "--project", "joe", "--gpus", "1"}, "--image is required"},
      {{"a", "--project", "joe", "--gpus", "two", "--image", "x"}, "--gpus: \"two\""},
      {{"a", "--project", "joe", "--gpus", "0", "--image", "x"}, "--gpus: must be above 0"},
      {{"a", "--project", "joe", "--gpus", "1.5", "--image", "x"}, "neither whole GPUs"},
      {{"a", "--project", "joe", "--gpus", "65", "--image", "x"}, "64 GPUs"},
      {{"a", "--project", "joe", "--gpus", "0.5", "--replicas", "2", "--image", "x"},
       "a fraction (0.5) is for one replica only"},
      {{"a", "--project", "joe", "--gpus", "1", "--image", "x", "--replicas", "0"}, "--replicas"},
      {{"a", "--project", "joe", "--gpus", "1", "--image", "x", "--class", "Batch"}, "--class"},
      {{"a", "--project", "joe", "--gpus", "1", "--image", "x", "--env", "=1"}, "--env"},
      {{"a", "--project", "joe", "--gpus", "1", "--image", "x", "--env", "1A=x"},
       "--env: \"1A\" is not an environment variable name"},
      {{"a", "--project", "joe", "--gpus", "1", "--image", "x", "--env", "MY VAR=x"},
       "--env: \"MY VAR\" is not an environment variable name"},
      {{"a", "--project", "joe", "--gpus", "1", "--image", "x", "--volume", "data"}, "--volume"},
      {{"a", "--project", "joe", "--gpus", "1", "--image", "x", "--volume", "d:rel"},
       "must be absolute"},
      {{"a", "--project", "joe", "--gpus", "1", "--image", "x", "--topology", "rack:Always"},
       "--topology"},
      {{"Bad_Name", "--project", "joe", "--gpus", "1", "--image", "x"}, "NAME: must be"},
      {{"a", "b", "--project", "joe", "--gpus", "1", "--image", "x"}, "unknown argument \"b\""},
      {{"a", "--project", "joe", "--gpus", "1", "--image", "x", "-A"}, "-A"},
      {{"a", "--project", "joe", "--gpus", "1", "--image", "x", "-o", "wide"}, "-o wide"},
  };
  for (const auto& [args, says] : cases) {
    try {
      Parse(args);
      ADD_FAILURE() << says << ": accepted";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find(says), std::string::npos) << error.what();
    }
  }
}

TEST(Submit, WhatCouldNeverRunIsRefusedWithASuggestion) {
  const std::vector<std::string> base = {"a", "--image", "x"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), base.begin(), base.end());
    return Refusal(more);
  };
  EXPECT_EQ(with({"--project", "joe", "--gpus", "1"}), "");
  EXPECT_NE(with({"--project", "jeo", "--gpus", "1"}).find("did you mean joe?"), std::string::npos);
  EXPECT_NE(with({"--project", "zz", "--gpus", "1"}).find("the projects are susan, joe"),
            std::string::npos);
  EXPECT_NE(with({"--project", "susan", "--gpus", "1"}).find("say which with --queue"),
            std::string::npos);
  EXPECT_NE(with({"--project", "joe", "--queue", "build", "--gpus", "1"})
                .find("project joe has no quota in queue build"),
            std::string::npos);
  EXPECT_NE(
      with({"--project", "susan", "--queue", "trian", "--gpus", "1"}).find("did you mean train?"),
      std::string::npos);
  EXPECT_NE(with({"--project", "susan", "--queue", "build", "--gpus", "1"})
                .find("fixed quota of 0.5 in queue build"),
            std::string::npos);
  EXPECT_NE(with({"--project", "susan", "--queue", "train", "--gpus", "7"})
                .find("limit of 6 in queue train"),
            std::string::npos);
  EXPECT_NE(with({"--project", "joe", "--gpus", "4", "--replicas", "3"})
                .find("12 GPUs is more than the 8 GPUs of queue train's nodes"),
            std::string::npos);
  EXPECT_NE(with({"--project", "joe", "--gpus", "6"})
                .find("6 GPUs for one replica are more than the 4 of queue train's largest node"),
            std::string::npos);
  EXPECT_EQ(with({"--project", "joe", "--gpus", "4", "--replicas", "2"}), "");
  EXPECT_NE(with({"--project", "joe", "--gpus", "1", "-n", "susan"})
                .find("-n: namespace susan is not project joe's"),
            std::string::npos);
  EXPECT_EQ(with({"--project", "susan", "--queue", "train", "--gpus", "1", "-n", "susan-2"}), "");
}

TEST(Submit, AQuotaInAQueueThatDoesNotExistIsNamed) {
  std::vector<Json> queues = {Queues()[1]};
  try {
    ResolveTarget(Parse({"a", "--project", "joe", "--gpus", "1", "--image", "x"}), Projects(),
                  queues);
    FAIL() << "accepted";
  } catch (const SubmitRefused& refused) {
    EXPECT_NE(std::string(refused.what()).find("no Queue of that name"), std::string::npos);
  }
}

TEST(Submit, ClosestNameIsAtMostTwoEditsAway) {
  EXPECT_EQ(ClosestName("susn", {"joe", "susan"}), "susan");
  EXPECT_EQ(ClosestName("xyzzy", {"joe", "susan"}), "");
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

Json WaitingJob(const std::string& name, int priority, const std::string& queued) {
  return {{"metadata", {{"name", name}, {"namespace", "susan"}}},
          {"spec", {{"queue", "train"}, {"priority", priority}}},
          {"status", {{"phase", "Queued"}, {"project", "susan"}, {"queuedTime", queued}}}};
}

TEST(JobLines, WaitingJobsAreNumberedByPriorityThenArrival) {
  std::vector<JobRow> rows;
  for (const Json& job : {WaitingJob("late", 0, "2026-01-01T00:00:09Z"),
                          WaitingJob("early", 0, "2026-01-01T00:00:01Z"),
                          WaitingJob("urgent", 9, "2026-01-01T00:00:10Z")})
    rows.push_back(ToRow(job, 0));
  Json running = WaitingJob("running", 99, "2026-01-01T00:00:00Z");
  running["status"]["phase"] = "Running";
  rows.push_back(ToRow(running, 0));
  NumberTheLines(rows);
  EXPECT_EQ(rows[0].position, 3);
  EXPECT_EQ(rows[1].position, 2);
  EXPECT_EQ(rows[2].position, 1);
  EXPECT_EQ(rows[3].position, 0);
  const auto ahead = AheadOf(rows, rows[0]);
  ASSERT_EQ(ahead.size(), 2u);
  EXPECT_EQ(ahead[0].name, "urgent");
  EXPECT_EQ(ahead[1].name, "early");
  EXPECT_EQ(JobRowsJson(rows)[0]["queuePosition"], 3);
  EXPECT_TRUE(JobRowsJson(rows)[3]["queuePosition"].is_null());
}

}  // namespace
}  // namespace gpupool::cli
