// JSON in/out: decoding then encoding keeps every field, including the ones
// gpupool does not model, and the user's own spelling of quantities.
#include <gtest/gtest.h>

#include "gpupool/api/department.h"
#include "gpupool/api/project.h"
#include "gpupool/api/queue.h"
#include "gpupool/api/training_job.h"
#include "gpupool/json/yaml.h"
#include "test_objects.h"

namespace gpupool::api {
namespace {

Json Encode(const Json& object) {
  json::FieldErrors errors;
  const std::string kind = object.value("kind", "");
  Json out;
  if (kind == "Queue") out = ToJson(DecodeQueue(object, errors));
  if (kind == "Project") out = ToJson(DecodeProject(object, errors));
  if (kind == "TrainingJob") out = ToJson(DecodeTrainingJob(object, errors));
  if (kind == "Department") out = ToJson(DecodeDepartment(object, errors));
  EXPECT_EQ(json::JoinErrors(errors), "");
  return out;
}

// Every field present in `subset` has the same value in `whole` (which may
// hold more: the defaults gpupool writes out).
void ExpectContains(const Json& whole, const Json& subset, const std::string& path) {
  if (subset.is_object()) {
    ASSERT_TRUE(whole.is_object()) << path;
    for (const auto& [key, value] : subset.items()) {
      ASSERT_TRUE(whole.contains(key)) << path << "." << key << " was dropped";
      ExpectContains(whole[key], value, path + "." + key);
    }
  } else if (subset.is_array()) {
    ASSERT_TRUE(whole.is_array() && whole.size() == subset.size()) << path;
    for (size_t i = 0; i < subset.size(); ++i) {
      ExpectContains(whole[i], subset[i], path + "[" + std::to_string(i) + "]");
    }
  } else {
    EXPECT_EQ(whole, subset) << path;
  }
}

TEST(RoundTrip, EveryExampleKeepsAllItsFields) {
  int round_tripped = 0;
  for (const auto& file : testing::YamlFilesIn("examples")) {
    for (const auto& object : json::LoadYamlFile(file)) {
      const std::string kind = object.value("kind", "");
      if (kind != "Queue" && kind != "Project" && kind != "TrainingJob" && kind != "Department") {
        continue;
      }
      SCOPED_TRACE(file + ": " + object["metadata"].value("name", ""));
      Json once = Encode(object);
      ExpectContains(once, object, "");
      EXPECT_EQ(Encode(once), once) << "encoding is not stable";
      ++round_tripped;
    }
  }
  EXPECT_GE(round_tripped, 15);
}

TEST(RoundTrip, QueueKeepsItsStatus) {
  Json queue = testing::ValidQueue();
  queue["status"] = Json::parse(R"({"observedGeneration": 3, "capacity": 24, "largestNode": 8,
      "guaranteed": 16, "allocated": "12.5", "overQuota": 2, "runningJobs": 5, "pendingJobs": 1})");
  Json once = Encode(queue);
  ExpectContains(once, queue, "");
  EXPECT_EQ(Encode(once), once);
  json::FieldErrors errors;
  EXPECT_EQ(DecodeQueue(queue, errors).status.largest_node->milli, 8000);
  EXPECT_TRUE(errors.empty());
}

TEST(RoundTrip, DepartmentKeepsItsQuotasAndStatus) {
  Json department = testing::ValidDepartment();
  department["status"] = Json::parse(R"({"guaranteed": 32, "allocated": "40.5", "overQuota": "8.5",
      "projects": ["susan"], "queues": [{"queue": "train", "guaranteed": 32, "allocated": "40.5",
      "overQuota": "8.5", "pending": 4}]})");
  Json once = Encode(department);
  ExpectContains(once, department, "");
  EXPECT_EQ(Encode(once), once);
  Json project = Encode(testing::ValidProject());
  EXPECT_EQ(project["spec"]["department"], "research");
}

TEST(RoundTrip, UnknownFieldsSurvive) {
  Json job = testing::ValidTrainingJob();
  job["metadata"]["managedFields"] = Json::array({{{"manager", "kubectl"}}});
  job["spec"]["futureField"] = {{"x", 1}};
  job["spec"]["template"]["spec"]["tolerations"] = Json::array({{{"key", "gpu"}}});
  job["status"] = {{"phase", "Running"}, {"somethingNew", true}};
  ExpectContains(Encode(job), job, "");
}

TEST(RoundTrip, TypedFieldsAreRead) {
  json::FieldErrors errors;
  Json object = testing::ValidTrainingJob();
  object["spec"]["minReplicas"] = 1;
  object["spec"]["workloadClass"] = "Build";
  object["status"] = Json::parse(R"({"phase": "Running", "allocatedGpu": "2",
      "placement": [{"replica": 0, "node": "n1", "devices": [0, 1]}],
      "conditions": [{"type": "Admitted", "status": "True", "reason": "Placed"}]})");
  TrainingJob job = DecodeTrainingJob(object, errors);
  ASSERT_EQ(json::JoinErrors(errors), "");
  EXPECT_EQ(job.spec.replicas, 2);
  EXPECT_EQ(job.spec.EffectiveMinReplicas(), 1);
  EXPECT_EQ(job.spec.gpus_per_replica.milli, 1000);
  EXPECT_FALSE(IsPreemptible(job.spec.workload_class));
  EXPECT_EQ(job.status.phase, JobPhase::kRunning);
  EXPECT_EQ(job.status.allocated_gpu->milli, 2000);
  EXPECT_EQ(job.status.placement[0], (ReplicaPlacement{0, "n1", {0, 1}}));
  EXPECT_EQ(FindCondition(job.status.conditions, "Admitted")->reason, "Placed");

  Project project = DecodeProject(testing::ValidProject(), errors);
  ASSERT_EQ(json::JoinErrors(errors), "");
  EXPECT_EQ(project.spec.QuotaFor("build")->gpu.milli, 500);
  EXPECT_EQ(project.spec.QuotaFor("build")->limit->milli, 1000);
  EXPECT_EQ(project.spec.QuotaFor("train")->over_quota_weight, 1);
  EXPECT_EQ(project.spec.QuotaFor("missing"), nullptr);

  Queue queue = DecodeQueue(testing::ValidQueue(), errors);
  ASSERT_EQ(json::JoinErrors(errors), "");
  EXPECT_EQ(queue.spec.sharing, Sharing::kGuaranteed);
  EXPECT_EQ(queue.spec.preemption.min_runtime_seconds, 60);
  EXPECT_EQ(queue.spec.node_selector.at("pool"), "train");
}

TEST(RoundTrip, QueueReclaimSettingsSurviveEncoding) {
  json::FieldErrors errors;
  Json in = testing::ValidQueue();
  in["spec"]["preemption"]["reclaimWaitSeconds"] = 300;
  in["spec"]["preemption"]["reclaimMaxRuntimeSeconds"] = 7200;
  in["spec"]["preemption"]["immediateGuaranteePercent"] = 25;
  Queue queue = DecodeQueue(in, errors);
  ASSERT_EQ(json::JoinErrors(errors), "");
  EXPECT_EQ(queue.spec.preemption.reclaim_max_runtime_seconds, 7200);
  Queue again = DecodeQueue(ToJson(queue), errors);
  ASSERT_EQ(json::JoinErrors(errors), "");
  EXPECT_EQ(again.spec.preemption.reclaim_wait_seconds, 300);
  EXPECT_EQ(again.spec.preemption.reclaim_max_runtime_seconds, 7200);
  EXPECT_EQ(again.spec.preemption.immediate_guarantee_percent, 25);
  EXPECT_EQ(DecodeQueue(testing::ValidQueue(), errors).spec.preemption.reclaim_max_runtime_seconds,
            0);
}

TEST(RoundTrip, ComputedStatusIsWrittenInDecimalGpus) {
  json::FieldErrors errors;
  Project project = DecodeProject(testing::ValidProject(), errors);
  project.status.allocated = json::Quantity::FromMilli(2500);
  project.status.queues.push_back(
      {"train",
       {json::Quantity::FromMilli(2000), json::Quantity::FromMilli(2500),
        json::Quantity::FromMilli(500), json::Quantity::FromMilli(0)},
       3,
       1});
  Json out = ToJson(project);
  EXPECT_EQ(out["status"]["allocated"], "2.5");
  EXPECT_EQ(out["status"]["queues"][0]["overQuota"], "0.5");
  EXPECT_EQ(out["status"]["queues"][0]["guaranteed"], 2);
}

}  // namespace
}  // namespace gpupool::api
