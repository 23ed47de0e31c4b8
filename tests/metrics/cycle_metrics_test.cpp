// ComputeCycleMetrics, table by table: a cluster as the caches hold it and the
// cycle's plan in, the exported numbers out.
#include "gpupool/metrics/cycle_metrics.h"

#include <gtest/gtest.h>

#include "view_builder.h"

namespace gpupool::metrics {
namespace {

using op::testing::HoldingStatus;
using op::testing::ViewBuilder;

constexpr op::EpochSeconds kNow = 1'800'000'000;

// Queue train (4 GPUs: Susan 2, Joe 2) and queue build (2 GPUs: Bob 1).
ViewBuilder TwoQueues() {
  ViewBuilder b(kNow);
  b.Node("node-0", 4, "train").Node("node-b", 2, "build");
  b.Queue("train", "train").Queue("build", "build");
  b.Project("susan", "susan", 2).Project("joe", "joe", 2).Project("bob", "bob", 1, "build");
  return b;
}

void RunningJob(ViewBuilder& b, const std::string& ns, const std::string& name, int device) {
  b.Job(ns, name, 1, 1, HoldingStatus("Running", "node-0", {device}, kNow - 100 + device, ns));
  b.JobPod(ns, name, 0, "node-0", "Running", false);
}

CycleMetrics Compute(const ViewBuilder& b, bool writes_accepted = true) {
  const op::Plan plan = op::PlanCycle(b.view(), {});
  return ComputeCycleMetrics(b.view(), plan, writes_accepted ? AllWritten(plan) : op::WriteStats{});
}

TEST(CycleMetrics, ProjectsAndQueuesOfTwoQueuesWithAnOverQuotaProject) {
  auto b = TwoQueues();
  for (int device = 0; device < 3; ++device)
    RunningJob(b, "susan", "s" + std::to_string(device), device);
  b.Job("bob", "compile", 1, 1, nullptr, "build");
  const CycleMetrics metrics = Compute(b);
  EXPECT_EQ(metrics.projects.at({"train", "susan"}), (ProjectGpus{2, 3, 1, 0}));
  EXPECT_EQ(metrics.projects.at({"train", "joe"}), (ProjectGpus{2, 0, 0, 0}));
  EXPECT_EQ(metrics.projects.at({"build", "bob"}), (ProjectGpus{1, 1, 0, 0}));
  EXPECT_EQ(metrics.projects.size(), 3u);
  EXPECT_EQ(metrics.queues.at("train"), (QueueGpus{4, 3, 4}));
  EXPECT_EQ(metrics.queues.at("build"), (QueueGpus{1, 1, 2}));
  const std::map<std::string, std::int64_t> phases = {
      {"Queued", 0},    {"Admitted", 1}, {"Running", 3},  {"Preempted", 0},
      {"Succeeded", 0}, {"Failed", 0},   {"Suspended", 0}};
  EXPECT_EQ(metrics.jobs_by_phase, phases);
  const std::map<QueueProjectDetail, std::int64_t> admissions = {{{"build", "bob", "Train"}, 1}};
  EXPECT_EQ(metrics.admissions, admissions);
  EXPECT_TRUE(metrics.preemptions.empty());
  // Created a minute before this cycle, admitted by it.
  ASSERT_EQ(metrics.queue_waits.size(), 1u);
  EXPECT_EQ(metrics.queue_waits[0], (QueueWait{"bob", "Train", 60}));
}

// A pod of Susan's asking for one GPU of `queue` (docs/workloads.md), gated.
op::Json QueuedPod(const std::string& name, const std::string& queue) {
  return {{"metadata",
           {{"name", name},
            {"namespace", "susan"},
            {"uid", "uid-" + name},
            {"creationTimestamp", op::FormatTime(kNow - 30)},
            {"labels", {{op::kQueueLabel, queue}}}}},
          {"spec",
           {{"schedulingGates", {{{"name", op::kAdmissionGate}}}},
            {"containers",
             {{{"name", "main"}, {"resources", {{"limits", {{"nvidia.com/gpu", 1}}}}}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

TEST(CycleMetrics, PodGroupsAreCountedByPhaseLikeTrainingJobs) {
  auto b = TwoQueues();
  RunningJob(b, "susan", "s0", 0);
  b.RawPod(QueuedPod("notebook", "train")).RawPod(QueuedPod("lost", "no-such-queue"));
  const CycleMetrics metrics = Compute(b);
  EXPECT_EQ(metrics.jobs_by_phase.at("Running"), 1);
  EXPECT_EQ(metrics.jobs_by_phase.at("Admitted"), 1) << "the notebook, released this cycle";
  EXPECT_EQ(metrics.jobs_by_phase.at("Queued"), 1) << "the pod naming no queue that exists";
}

TEST(CycleMetrics, ReclaimIsAPreemptionOfTheVictimsProjectAndAnAdmissionOfTheOther) {
  auto b = TwoQueues();
  for (int device = 0; device < 4; ++device)
    RunningJob(b, "susan", "s" + std::to_string(device), device);
  b.Job("joe", "j0", 1, 1);
  b.JobPod("joe", "j0", 0, "", "Pending", true);
  const CycleMetrics metrics = Compute(b);
  const std::map<QueueProjectDetail, std::int64_t> preemptions = {
      {{"train", "susan", preemption_reason::kReclaim}, 1}};
  EXPECT_EQ(metrics.preemptions, preemptions);
  const std::map<QueueProjectDetail, std::int64_t> admissions = {{{"train", "joe", "Train"}, 1}};
  EXPECT_EQ(metrics.admissions, admissions);
  EXPECT_EQ(metrics.projects.at({"train", "susan"}), (ProjectGpus{2, 3, 1, 0}));
  EXPECT_EQ(metrics.projects.at({"train", "joe"}), (ProjectGpus{2, 1, 0, 0}));
  EXPECT_EQ(metrics.jobs_by_phase.at("Preempted"), 1);
  EXPECT_EQ(metrics.jobs_by_phase.at("Running"), 3);
  EXPECT_EQ(metrics.jobs_by_phase.at("Admitted"), 1);
}

TEST(CycleMetrics, RefusedWritesCountNothingAndLeaveThePhasesAsTheyWere) {
  auto b = TwoQueues();
  for (int device = 0; device < 4; ++device)
    RunningJob(b, "susan", "s" + std::to_string(device), device);
  b.Job("joe", "j0", 1, 1, {{"phase", "Queued"}, {"project", "joe"}});
  const CycleMetrics metrics = Compute(b, /*writes_accepted=*/false);
  EXPECT_TRUE(metrics.preemptions.empty());
  EXPECT_TRUE(metrics.admissions.empty());
  EXPECT_TRUE(metrics.queue_waits.empty());
  EXPECT_EQ(metrics.jobs_by_phase.at("Running"), 4);
  EXPECT_EQ(metrics.jobs_by_phase.at("Queued"), 1);
}

TEST(CycleMetrics, JobOnALostNodeIsAPreemptionForNodeLost) {
  ViewBuilder b(kNow);
  b.Node("node-0", 4, "train", /*ready=*/false).Node("node-1", 4, "train").Queue("train", "train");
  b.Project("susan", "susan", 2);
  RunningJob(b, "susan", "a", 0);
  const CycleMetrics metrics = Compute(b);
  const std::map<QueueProjectDetail, std::int64_t> preemptions = {
      {{"train", "susan", preemption_reason::kNodeLost}, 1}};
  EXPECT_EQ(metrics.preemptions, preemptions);
  EXPECT_EQ(metrics.queues.at("train").capacity, 4);  // node-0 is not ready.
}

TEST(CycleMetrics, ResumedJobsAdmissionCountsButItsWaitDoesNot) {
  auto b = TwoQueues();
  b.Job("joe", "resumed", 1, 1,
        {{"phase", "Preempted"},
         {"project", "joe"},
         {"preemptionCount", 1},
         {"queuedTime", op::FormatTime(kNow - 5000)}});
  const CycleMetrics metrics = Compute(b);
  EXPECT_EQ(metrics.admissions.size(), 1u);
  EXPECT_TRUE(metrics.queue_waits.empty());
}

TEST(CycleMetrics, DeletedProjectHasNoFigures) {
  auto b = TwoQueues();
  ViewBuilder without_joe(kNow);
  without_joe.Node("node-0", 4, "train").Queue("train", "train").Project("susan", "susan", 2);
  EXPECT_TRUE(Compute(b).projects.count({"train", "joe"}));
  const CycleMetrics metrics = Compute(without_joe);
  EXPECT_FALSE(metrics.projects.count({"train", "joe"}));
  EXPECT_FALSE(metrics.queues.count("build"));
}

// Susan's two running jobs read 20% and 60%: her train GPUs are 40% used; Joe's
// job has no reading and no figure; without readings nobody has one; a pod
// that only wears a job's label counts for nobody.
TEST(CycleMetrics, UtilizationPerProjectFromTheDcgmReadings) {
  auto b = TwoQueues();
  RunningJob(b, "susan", "s0", 0);
  RunningJob(b, "susan", "s1", 1);
  RunningJob(b, "joe", "j2", 2);
  EXPECT_TRUE(Compute(b).utilization.empty());
  auto readings = std::make_shared<utilization::Readings>();
  readings->available = true;
  readings->Add({"node-0", "0", "GPU-0", "susan", "s0-0", "main", 20});
  readings->Add({"node-0", "1", "GPU-1", "susan", "s1-0", "main", 60});
  // A pod of her own that wears s0's label is not s0's: its reading is no job's.
  b.ForeignPod("susan", "forged", "node-0", 1, "s0");
  readings->Add({"node-0", "3", "GPU-3", "susan", "forged", "main", 100});
  b.GpuReadings(readings);
  const CycleMetrics metrics = Compute(b);
  ASSERT_EQ(metrics.utilization.size(), 1u);
  EXPECT_DOUBLE_EQ(metrics.utilization.at({"train", "susan"}), 0.4);
}

TEST(CycleMetrics, PreemptionReasonsAreABoundedSet) {
  const std::map<std::string, std::string> table = {{"Reclaimed", "reclaim"},
                                                    {"PreemptedByPriority", "priority"},
                                                    {"NodeLost", "node_lost"},
                                                    {"ReplicaLost", "replica_lost"},
                                                    {"ReservationLost", "reservation_lost"},
                                                    {"StartTimeout", "start_timeout"},
                                                    {"PlacementConflict", "placement_conflict"},
                                                    {"QueueDeleted", "queue_deleted"},
                                                    {"PodFailed", ""},
                                                    {"SomethingNew", "other"},
                                                    {"", "other"}};
  for (const auto& [reason, label] : table)
    EXPECT_EQ(PreemptionReasonLabel(reason), label) << reason;
}

}  // namespace
}  // namespace gpupool::metrics
