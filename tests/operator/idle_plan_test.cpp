// Utilization and idle Build sessions in PlanCycle: the DCGM readings are an
// input of the cycle; releasing or flagging an idle session is a plan decision.
#include <gtest/gtest.h>

#include "gpupool/operator/plan.h"
#include "view_builder.h"

namespace gpupool::op {
namespace {

using testing::HoldingStatus;
using testing::ViewBuilder;

using testing::kNow;

Json IdlePolicy(const std::string& action, int seconds = 600) {
  return {{"utilizationBelowPercent", 10}, {"forSeconds", seconds}, {"action", action}};
}

// Ana's notebook: a one-GPU Build job with `status`.
Json Notebook(const Json& status) {
  return {{"apiVersion", "gpupool.dev/v1alpha1"},
          {"kind", "TrainingJob"},
          {"metadata",
           {{"name", "notebook"},
            {"namespace", "ana"},
            {"uid", ViewBuilder::UidOf("ana", "notebook")},
            {"generation", 1},
            {"resourceVersion", "7"},
            {"creationTimestamp", FormatTime(kNow - 4000)}}},
          {"spec",
           {{"queue", "build"},
            {"workloadClass", "Build"},
            {"gpusPerReplica", 1},
            {"template", {{"spec", {{"containers", {{{"name", "nb"}, {"image", "jl"}}}}}}}}}},
          {"status", status}};
}

// Ana's build quota is one GPU; her notebook holds it and runs.
ViewBuilder AnasNotebook(const Json& idle, const Json& idle_condition = nullptr,
                         const Json& utilization = nullptr) {
  ViewBuilder b(kNow);
  b.Node("node-0", 2, "build").Queue("build", "build", "Fixed", idle);
  b.Project("ana", "ana", 1, "build");
  Json status = HoldingStatus("Running", "node-0", {0}, kNow - 3600, "ana");
  status["observedGeneration"] = 1;
  status["requestedGpu"] = 1;  // As every cycle writes it: only what a test changes differs.
  if (!idle_condition.is_null()) status["conditions"] = Json::array({idle_condition});
  if (!utilization.is_null()) status["gpuUtilizationPercent"] = utilization;
  b.RawJob(Notebook(status));
  b.JobPod("ana", "notebook", 0, "node-0", "Running", false);
  return b;
}

utilization::SharedReadings Reading(double percent, const std::string& pod = "notebook-0") {
  auto readings = std::make_shared<utilization::Readings>();
  readings->available = true;
  readings->read_at = kNow;
  readings->Add({"node-0", "0", "GPU-0", "ana", pod, "nb", percent});
  return readings;
}

utilization::SharedReadings Broken() {
  auto readings = std::make_shared<utilization::Readings>();
  readings->problem = "GET http://exporter/metrics: HTTP status 500";
  readings->read_at = kNow;
  return readings;
}

Json IdleSince(EpochSeconds since, const std::string& reason = "BelowThreshold") {
  return {{"type", "Idle"},
          {"status", "True"},
          {"reason", reason},
          {"message", "every GPU below 10% utilization"},
          {"lastTransitionTime", FormatTime(since)},
          {"observedGeneration", 1}};
}

const StatusWrite* StatusOf(const Plan& plan, const std::string& name) {
  for (const auto* writes : plan.StatusWrites())
    for (const auto& write : *writes)
      if (write.kind == Kind::kTrainingJob && write.name == name) return &write;
  return nullptr;
}

Json ConditionOf(const StatusWrite& write, const std::string& type) {
  for (const auto& condition : write.patch["status"].value("conditions", Json::array()))
    if (condition["type"] == type) return condition;
  return nullptr;
}

TEST(IdlePlan, UtilizationGoesToTheJobsStatus) {
  auto b = AnasNotebook(nullptr);
  b.GpuReadings(Reading(61.6));
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* write = StatusOf(plan, "notebook");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(write->patch["status"]["gpuUtilizationPercent"], 62);
  EXPECT_TRUE(ConditionOf(*write, "Idle").is_null());  // No policy, no Idle condition.
}

// Once 63 is written, a reading of 66 is within the step and 70 is not.
TEST(IdlePlan, ASmallChangeOfUtilizationWritesNothing) {
  auto with_reading = [](double percent) {
    auto b = AnasNotebook(nullptr, nullptr, 63);
    b.GpuReadings(Reading(percent));
    return PlanCycle(b.view(), {});
  };
  EXPECT_EQ(StatusOf(with_reading(66), "notebook"), nullptr);
  const Plan moved = with_reading(70);
  ASSERT_NE(StatusOf(moved, "notebook"), nullptr);
  EXPECT_EQ(StatusOf(moved, "notebook")->patch["status"]["gpuUtilizationPercent"], 70);
}

TEST(IdlePlan, ASessionThatTurnsIdleStartsItsClock) {
  auto b = AnasNotebook(IdlePolicy("Preempt"));
  b.GpuReadings(Reading(2));
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* write = StatusOf(plan, "notebook");
  ASSERT_NE(write, nullptr);
  const Json idle = ConditionOf(*write, "Idle");
  EXPECT_EQ(idle["status"], "True");
  EXPECT_EQ(idle["reason"], "BelowThreshold");
  EXPECT_EQ(idle["lastTransitionTime"], FormatTime(kNow));
  EXPECT_EQ(write->patch["status"]["phase"], "Running");
  EXPECT_EQ(plan.wake_at, kNow + 600);
  EXPECT_TRUE(plan.pod_deletes.empty());
}

TEST(IdlePlan, IdlePastThePolicyIsReleasedAndItsQuotaGoesToTheNextSession) {
  auto b = AnasNotebook(IdlePolicy("Preempt"), IdleSince(kNow - 601));
  b.Job("ana", "second", 1, 1, nullptr, "build");
  b.GpuReadings(Reading(2));
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* write = StatusOf(plan, "notebook");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(write->patch["status"]["phase"], "Failed");
  EXPECT_EQ(ConditionOf(*write, "Finished")["reason"], "IdleTimeout");
  EXPECT_EQ(ConditionOf(*write, "Idle")["reason"], "IdleTimeout");
  ASSERT_EQ(plan.pod_deletes.size(), 1u);
  EXPECT_EQ(plan.pod_deletes[0].name, "notebook-0");
  bool told = false;
  for (const auto& event : plan.events)
    told = told || (event.name == "notebook" && event.reason == "IdleTimeout");
  EXPECT_TRUE(told);
  // The project's one GPU of build quota is free again: the waiting session gets it.
  ASSERT_EQ(plan.decisions.admissions.size(), 1u);
  EXPECT_EQ(plan.decisions.admissions[0].job, "ana/second");
}

TEST(IdlePlan, ABusySessionIsKeptAndItsClockStops) {
  auto b = AnasNotebook(IdlePolicy("Preempt"), IdleSince(kNow - 6000));
  b.GpuReadings(Reading(45));
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* write = StatusOf(plan, "notebook");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(write->patch["status"]["phase"], "Running");
  EXPECT_EQ(ConditionOf(*write, "Idle")["status"], "False");
  EXPECT_EQ(ConditionOf(*write, "Idle")["reason"], "Busy");
  EXPECT_TRUE(plan.pod_deletes.empty());
}

TEST(IdlePlan, WithoutReadingsEveryJobIsLeftAloneAndTheConditionSaysWhy) {
  for (const auto& readings : {Broken(), utilization::SharedReadings()}) {
    auto b = AnasNotebook(IdlePolicy("Preempt"), IdleSince(kNow - 6000));
    b.GpuReadings(readings);
    const Plan plan = PlanCycle(b.view(), {});
    const StatusWrite* write = StatusOf(plan, "notebook");
    ASSERT_NE(write, nullptr);
    EXPECT_EQ(write->patch["status"]["phase"], "Running");
    EXPECT_EQ(ConditionOf(*write, "Idle")["status"], "Unknown");
    EXPECT_EQ(ConditionOf(*write, "Idle")["reason"], "MetricsUnavailable");
    EXPECT_TRUE(plan.pod_deletes.empty());
  }
}

// A restarted controller's first cycles come before its first scrape: the idle
// clock and the recorded utilization are kept, not reset.
TEST(IdlePlan, BeforeTheFirstScrapeTheStatusesAreKept) {
  auto b = AnasNotebook(IdlePolicy("Preempt"), IdleSince(kNow - 300), 40);
  b.GpuReadings(std::make_shared<utilization::Readings>());
  const Plan plan = PlanCycle(b.view(), {});
  EXPECT_EQ(StatusOf(plan, "notebook"), nullptr);
  EXPECT_TRUE(plan.pod_deletes.empty());
}

TEST(IdlePlan, APodTheExporterDoesNotReportIsNotJudged) {
  auto b = AnasNotebook(IdlePolicy("Preempt"), IdleSince(kNow - 6000));
  b.GpuReadings(Reading(0, "someone-else-0"));
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* write = StatusOf(plan, "notebook");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(ConditionOf(*write, "Idle")["reason"], "NoReading");
  EXPECT_TRUE(plan.pod_deletes.empty());
}

TEST(IdlePlan, TrainJobsAreNeverJudgedIdle) {
  ViewBuilder b(kNow);
  b.Node("node-0", 2, "train").Queue("train", "train", "Guaranteed", IdlePolicy("Preempt", 1));
  b.Project("ana", "ana", 1, "train");
  b.Job("ana", "trainer", 1, 1, HoldingStatus("Running", "node-0", {0}, kNow - 3600, "ana"));
  b.JobPod("ana", "trainer", 0, "node-0", "Running", false);
  b.GpuReadings(Reading(0, "trainer-0"));
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* write = StatusOf(plan, "trainer");
  ASSERT_NE(write, nullptr);
  EXPECT_TRUE(ConditionOf(*write, "Idle").is_null());
  EXPECT_TRUE(plan.pod_deletes.empty());
}

TEST(IdlePlan, AnnotateFlagsTheSessionsPodsOnceAndKeepsItRunning) {
  auto b = AnasNotebook(IdlePolicy("Annotate"), IdleSince(kNow - 601));
  b.GpuReadings(Reading(2));
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* write = StatusOf(plan, "notebook");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(write->patch["status"]["phase"], "Running");
  EXPECT_EQ(ConditionOf(*write, "Idle")["reason"], "IdleTimeout");
  EXPECT_TRUE(plan.pod_deletes.empty());
  ASSERT_EQ(plan.pod_patches.size(), 1u);
  EXPECT_EQ(plan.pod_patches[0].name, "notebook-0");
  EXPECT_EQ(plan.pod_patches[0].patch["metadata"]["annotations"]["gpupool.dev/idle-since"],
            FormatTime(kNow - 601));
  ASSERT_EQ(plan.events.size(), 1u);
  EXPECT_EQ(plan.events[0].action, "Annotate");
}

}  // namespace
}  // namespace gpupool::op
