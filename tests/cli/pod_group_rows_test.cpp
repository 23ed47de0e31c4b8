// The rows `gpupool list` shows for pods of other owners (docs/workloads.md):
// one per workload, its phase, GPUs and standing read from the pods.
#include "pod_group_rows.h"

#include <gtest/gtest.h>

#include "gpupool/operator/pod_view.h"

namespace gpupool::cli {
namespace {

using Json = nlohmann::json;

constexpr op::EpochSeconds kAt = 1'800'000'000;

// A pod of Susan's asking for `gpus` GPUs of queue train, gated until released.
Json AskingPodObject(const std::string& name, int gpus) {
  return {{"metadata",
           {{"name", name},
            {"namespace", "susan"},
            {"uid", "uid-" + name},
            {"creationTimestamp", op::FormatTime(kAt - 90)},
            {"labels", {{op::kQueueLabel, "train"}}}}},
          {"spec",
           {{"schedulingGates", {{{"name", op::kAdmissionGate}}}},
            {"containers",
             {{{"name", "main"}, {"resources", {{"limits", {{"nvidia.com/gpu", gpus}}}}}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

// The pod as the controller released it over quota, Running on node-0.
Json Released(Json pod, bool over_quota) {
  pod["spec"].erase("schedulingGates");
  pod["spec"]["nodeName"] = "node-0";
  pod["metadata"]["labels"][op::kReplicaLabel] = "0";
  pod["metadata"]["annotations"][op::kAdmissionAnnotation] = Json{
      {"admittedTime", op::FormatTime(kAt - 60)},
      {"overQuota", over_quota},
      {"placement",
       {{{"replica", 0}, {"node", "node-0"}, {"devices", {0}}}}}}.dump();
  pod["status"]["phase"] = "Running";
  return pod;
}

Json OfJob(Json pod, const std::string& job) {
  pod["metadata"]["ownerReferences"] = {{{"apiVersion", "batch/v1"},
                                         {"kind", "Job"},
                                         {"name", job},
                                         {"uid", "uid-" + job},
                                         {"controller", true}}};
  return pod;
}

const JobRow* Named(const std::vector<JobRow>& rows, const std::string& name) {
  for (const auto& row : rows)
    if (row.name == name) return &row;
  return nullptr;
}

TEST(PodGroupRows, OneRowPerWorkloadWithItsPhaseGpusAndStanding) {
  Json waiting = AskingPodObject("lost", 1);
  waiting["status"]["conditions"] = {{{"type", op::kAdmittedCondition},
                                      {"status", "False"},
                                      {"reason", "UnknownQueue"},
                                      {"message", "queue nope does not exist"}}};
  const Json pods = {Released(AskingPodObject("notebook", 1), true),
                     OfJob(Released(AskingPodObject("sweep-a", 2), false), "sweep"),
                     OfJob(AskingPodObject("sweep-b", 2), "sweep"), waiting,
                     Json{{"metadata", {{"name", "plain"}, {"namespace", "susan"}}}}};
  const auto rows = PodGroupRows(pods, {{"susan", "susan"}}, kAt);
  ASSERT_EQ(rows.size(), 3u) << "the unlabelled pod is not gpupool's";
  const JobRow* notebook = Named(rows, "pod/notebook");
  ASSERT_NE(notebook, nullptr);
  EXPECT_EQ(notebook->kind, "PodGroup");
  EXPECT_EQ(notebook->project, "susan");
  EXPECT_EQ(notebook->phase, "Running");
  EXPECT_TRUE(notebook->over_quota);
  EXPECT_EQ(notebook->gpus, "1");
  EXPECT_EQ(notebook->age_seconds, 90);
  const JobRow* sweep = Named(rows, "job/sweep");
  ASSERT_NE(sweep, nullptr);
  EXPECT_EQ(sweep->phase, "Admitted") << "one of its pods is still gated";
  EXPECT_EQ(sweep->gpus, "4");
  EXPECT_EQ(sweep->allocated, "2");
  const JobRow* lost = Named(rows, "pod/lost");
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->phase, "Queued");
  EXPECT_EQ(lost->reason, "queue nope does not exist");
  EXPECT_EQ(lost->allocated, "");
}

TEST(PodGroupRows, FinishedWorkloadsAndOddPodsAreShownOrSkippedWithoutFailing) {
  Json done = OfJob(Released(AskingPodObject("done-0", 1), false), "done");
  done["status"]["phase"] = "Succeeded";
  Json failed = OfJob(Released(AskingPodObject("bad-0", 1), false), "bad");
  failed["status"]["phase"] = "Failed";
  const Json pods = {done, failed, Json::array(), Json("text"), Json{{"metadata", 7}}};
  const auto rows = PodGroupRows(pods, {}, kAt);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(Named(rows, "job/done")->phase, "Succeeded");
  EXPECT_EQ(Named(rows, "job/bad")->phase, "Failed");
  EXPECT_EQ(Named(rows, "job/bad")->project, "") << "no Project owns the namespace";
}

}  // namespace
}  // namespace gpupool::cli
