// PlanCycle, table by table: the cluster as the caches hold it in, the writes out.
#include "gpupool/operator/plan.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "view_builder.h"

namespace gpupool::op {
namespace {

using testing::HoldingStatus;
using testing::ViewBuilder;

using testing::kNow;

ViewBuilder Cluster() {
  ViewBuilder b(kNow);
  b.Node("node-0", 4, "train").Queue("train", "train");
  b.Project("susan", "susan", 2).Project("joe", "joe", 2);
  return b;
}

// Susan runs four one-GPU jobs on the 4-GPU node, two of them over her quota.
ViewBuilder SusanFillsTheNodeOverQuota() {
  auto b = Cluster();
  for (int i = 0; i < 4; ++i) {
    const std::string name = "s" + std::to_string(i);
    b.Job("susan", name, 1, 1, HoldingStatus("Running", "node-0", {i}, kNow - 100 + i, "susan"));
    b.JobPod("susan", name, 0, "node-0", "Running", false);
  }
  return b;
}

const StatusWrite* FindStatus(const std::vector<StatusWrite>& writes, const std::string& name) {
  for (const auto& write : writes)
    if (write.name == name) return &write;
  return nullptr;
}

const Json* FindCondition(const StatusWrite& write, const std::string& type) {
  for (const auto& condition : write.patch["status"]["conditions"])
    if (condition["type"] == type) return &condition;
  return nullptr;
}

// `field` of the `type` condition in the status write of `name` ("" when any is missing).
std::string ConditionField(const std::vector<StatusWrite>& writes, const std::string& name,
                           const std::string& type, const std::string& field) {
  const StatusWrite* write = FindStatus(writes, name);
  const Json* condition = write ? FindCondition(*write, type) : nullptr;
  return condition ? condition->value(field, "") : "";
}

// A queue's status counts the GPUs of its ready, schedulable nodes and the
// most one of them has: a cordoned or unready node is in neither.
TEST(PlanCycle, AQueueReportsItsCapacityAndLargestNode) {
  auto b = Cluster();
  b.Node("node-1", 8, "train").Node("node-2", 16, "train", false).Node("node-3", 12, "train");
  b.Cordon("node-3").Node("node-4", 32, "build");
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* queue = FindStatus(plan.other_statuses, "train");
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->kind, Kind::kQueue);
  EXPECT_EQ(queue->patch["status"]["capacity"], 12);
  EXPECT_EQ(queue->patch["status"]["largestNode"], 8);
}

// Departments: the project's guarantee in force, the department's status, the
// reason that names the department's limit, and a project naming a missing one.
TEST(PlanCycle, DepartmentsGetTheirStatusAndBlockingReasons) {
  auto b = Cluster();
  b.Department("research", 2, 3).InDepartment("susan", "research").InDepartment("joe", "research");
  b.Project("ana", "ana", 0).InDepartment("ana", "nowhere");
  for (int i = 0; i < 4; ++i) b.Job("susan", "s" + std::to_string(i), 1, 1);
  const Plan plan = PlanCycle(b.view(), {});
  EXPECT_EQ(plan.decisions.admissions.size(), 3u);  // 1 + 1 within the scaled quotas, 1 over.
  const StatusWrite* waiting = FindStatus(plan.other_statuses, "s3");
  ASSERT_NE(waiting, nullptr);
  EXPECT_EQ((*FindCondition(*waiting, "Admitted"))["message"],
            "department research is at its limit of 3 GPUs in queue train (its projects use 3 "
            "GPUs, this job of project susan needs 1 GPU)");
  const StatusWrite* department = FindStatus(plan.other_statuses, "research");
  ASSERT_NE(department, nullptr);
  EXPECT_EQ(department->kind, Kind::kDepartment);
  const Json& status = department->patch["status"];
  EXPECT_EQ(status["guaranteed"], 2);
  EXPECT_EQ(status["allocated"], 3);
  EXPECT_EQ(status["overQuota"], 1);
  EXPECT_EQ(status["projects"], Json::array({"joe", "susan"}));
  EXPECT_EQ((*FindCondition(*department, "Ready"))["message"],
            "in queue train its projects' quotas add up to 4 GPUs, above its 2: each is "
            "guaranteed that fraction of its own");
  const StatusWrite* susan = FindStatus(plan.other_statuses, "susan");
  ASSERT_NE(susan, nullptr);
  EXPECT_EQ(susan->patch["status"]["guaranteed"], 1);  // 2 asked, scaled by 2 / 4.
  const StatusWrite* ana = FindStatus(plan.other_statuses, "ana");
  ASSERT_NE(ana, nullptr);
  EXPECT_EQ((*FindCondition(*ana, "Ready"))["reason"], "UnknownDepartment");
}

// The pod contract, on a job that must wait: the node is full of work within quota.
// A quota larger than its pool says by how much, in GPUs.
// The engine places a job only on nodes its pod template's nodeSelector matches.
TEST(PlanCycle, AJobIsPlacedOnlyWhereItsTemplatesNodeSelectorMatches) {
  auto b = Cluster();
  b.Node("node-1", 4, "train");
  const auto pinned = [](const std::string& name, const std::string& node) {
    Json job = {{"apiVersion", "gpupool.dev/v1alpha1"},
                {"kind", "TrainingJob"},
                {"metadata",
                 {{"name", name},
                  {"namespace", "susan"},
                  {"uid", ViewBuilder::UidOf("susan", name)},
                  {"generation", 1},
                  {"resourceVersion", "7"},
                  {"creationTimestamp", FormatTime(kNow - 60)}}},
                {"spec", {{"queue", "train"}, {"replicas", 1}, {"gpusPerReplica", 1}}}};
    job["spec"]["template"]["spec"] = {{"nodeSelector", {{"kubernetes.io/hostname", node}}},
                                       {"containers", {{{"name", "main"}, {"image", "trainer"}}}}};
    return job;
  };
  b.RawJob(pinned("on-node-1", "node-1")).RawJob(pinned("on-no-node", "node-9"));
  const Plan plan = PlanCycle(b.view(), {});
  ASSERT_EQ(plan.decisions.admissions.size(), 1u);
  EXPECT_EQ(plan.decisions.admissions[0].job, "susan/on-node-1");
  EXPECT_EQ(plan.decisions.admissions[0].replicas[0].node, "node-1");
}

TEST(PlanCycle, AQuotaBeyondThePoolSaysSo) {
  auto b = Cluster();
  b.Project("greedy", "greedy", 5).Project("modest", "modest", 1, "build");
  b.Node("node-9", 0, "build").Queue("build", "build", "Fixed");
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* greedy = FindStatus(plan.other_statuses, "greedy");
  ASSERT_NE(greedy, nullptr);
  EXPECT_EQ((*FindCondition(*greedy, "Ready"))["message"],
            "spec.quotas[0].gpu: a quota of 5 GPUs is more than queue train's capacity of 4 GPUs");
  const StatusWrite* modest = FindStatus(plan.other_statuses, "modest");
  ASSERT_NE(modest, nullptr);
  EXPECT_EQ((*FindCondition(*modest, "Ready"))["message"],
            "spec.quotas[0].gpu: a quota of 1 GPU is more than queue build's capacity of 0 GPUs");
}

TEST(PlanCycle, WaitingJobGetsGatedPodsOfThePodContract) {
  auto b = Cluster();
  for (int i = 0; i < 4; ++i) {
    const std::string ns = i < 2 ? "susan" : "joe", name = "r" + std::to_string(i);
    b.Job(ns, name, 1, 1, HoldingStatus("Running", "node-0", {i}, kNow - 100, ns));
    b.JobPod(ns, name, 0, "node-0", "Running", false);
  }
  b.Job("susan", "train-a", 2, 1);
  const Plan plan = PlanCycle(b.view(), {});
  ASSERT_EQ(plan.pod_creates.size(), 2u);
  const Json pod = plan.pod_creates[0].Pod();
  EXPECT_EQ(pod["metadata"]["name"], "train-a-0");
  EXPECT_EQ(pod["metadata"]["labels"][kJobLabel], "train-a");
  EXPECT_EQ(pod["metadata"]["labels"][kProjectLabel], "susan");
  EXPECT_EQ(pod["metadata"]["labels"][kQueueLabel], "train");
  EXPECT_EQ(pod["metadata"]["labels"][kReplicaLabel], "0");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["uid"], ViewBuilder::UidOf("susan", "train-a"));
  EXPECT_EQ(pod["spec"]["schedulingGates"][0]["name"], kAdmissionGate);
  EXPECT_FALSE(pod["spec"].contains("nodeSelector"));
  EXPECT_EQ(pod["spec"]["priorityClassName"], "gpupool-train");
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], "1");
  EXPECT_EQ(pod["spec"]["subdomain"], "train-a");
  std::set<std::string> env;
  for (const auto& variable : pod["spec"]["containers"][0]["env"]) env.insert(variable["name"]);
  for (const char* name :
       {"WORLD_SIZE", "RANK", "MASTER_ADDR", "MASTER_PORT", "GPUPOOL_RESTART_COUNT"})
    EXPECT_TRUE(env.count(name)) << name;
  ASSERT_EQ(plan.services.size(), 1u);
  EXPECT_EQ(plan.services[0]["spec"]["clusterIP"], "None");
  EXPECT_TRUE(plan.admission_statuses.empty());
}

// A gang's name may take all the room its pods' hostnames leave: 61 characters
// with 2 replicas ("-0", "-1"), and its replicas still find each other by name.
TEST(PlanCycle, AGangWithALongNameStillGetsHostnames) {
  auto b = Cluster();
  const std::string name(61, 'g');
  b.Job("susan", name, 2, 1);
  const Plan plan = PlanCycle(b.view(), {});
  ASSERT_EQ(plan.pod_creates.size(), 2u);
  const Json spec = plan.pod_creates[1].Pod()["spec"];
  EXPECT_EQ(spec["hostname"], name + "-1");
  EXPECT_EQ(spec["subdomain"], name);
}

// A job admitted in the cycle that first sees it: the admission is recorded
// (written before any pod), and its pods are created already released.
TEST(PlanCycle, NewJobAdmittedAtOnceGetsItsPodsCreatedReleased) {
  auto b = Cluster();
  b.Job("susan", "train-a", 2, 1);
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* status = FindStatus(plan.admission_statuses, "train-a");
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(status->patch["status"]["phase"], "Admitted");
  EXPECT_EQ(status->patch["status"]["placement"].size(), 2u);
  EXPECT_EQ(status->patch["metadata"]["resourceVersion"], "7");
  ASSERT_EQ(plan.pod_creates.size(), 2u);
  for (const auto& create : plan.pod_creates) {
    EXPECT_EQ(create.job_key, "susan/train-a");
    const Json pod = create.Pod();
    EXPECT_EQ(create.ns, "susan");
    EXPECT_EQ(create.name, pod["metadata"]["name"]);
    EXPECT_FALSE(create.gated);
    EXPECT_FALSE(pod["spec"].contains("schedulingGates")) << pod.dump();
    EXPECT_EQ(pod["spec"]["nodeSelector"]["kubernetes.io/hostname"], "node-0");
    EXPECT_EQ(pod["metadata"]["annotations"]["gpupool.dev/world-size"], "2");
    EXPECT_EQ(pod["metadata"]["labels"][kJobLabel], "train-a");
  }
  EXPECT_TRUE(plan.pod_releases.empty());
}

// A template's own scheduling gate stays on the released pod (whoever set it
// removes it), and does not make the create one of the gated ones a cycle's
// budget limits.
TEST(PlanCycle, AReleasedPodKeepsItsTemplatesOwnGateAndIsNotCountedGated) {
  auto b = Cluster();
  const Json object = {{"apiVersion", "gpupool.dev/v1alpha1"},
                       {"kind", "TrainingJob"},
                       {"metadata",
                        {{"name", "gated"},
                         {"namespace", "susan"},
                         {"uid", "uid-gated"},
                         {"generation", 1},
                         {"resourceVersion", "7"}}},
                       {"spec",
                        {{"queue", "train"},
                         {"gpusPerReplica", 1},
                         {"template",
                          {{"spec",
                            {{"schedulingGates", {{{"name", "example.com/quota"}}}},
                             {"containers", {{{"name", "main"}, {"image", "x"}}}}}}}}}}};
  b.RawJob(object);
  const Plan plan = PlanCycle(b.view(), {});
  ASSERT_EQ(plan.pod_creates.size(), 1u);
  const Json pod = plan.pod_creates[0].Pod();
  EXPECT_FALSE(plan.pod_creates[0].gated);
  EXPECT_EQ(pod["spec"]["schedulingGates"], Json::array({{{"name", "example.com/quota"}}}));
  EXPECT_EQ(pod["spec"]["nodeSelector"]["kubernetes.io/hostname"], "node-0");
}

// Room a victim still holds is not room yet: the beneficiary's new pods are
// created gated, to be released once the victim's pods are gone.
TEST(PlanCycle, JobAdmittedIntoAStoppingVictimsRoomGetsGatedPods) {
  auto b = SusanFillsTheNodeOverQuota();
  b.Job("joe", "j0", 1, 1);
  const Plan plan = PlanCycle(b.view(), {});
  ASSERT_NE(FindStatus(plan.admission_statuses, "j0"), nullptr);
  ASSERT_EQ(plan.pod_creates.size(), 1u);
  const Json pod = plan.pod_creates[0].Pod();
  EXPECT_TRUE(plan.pod_creates[0].gated);
  EXPECT_EQ(pod["spec"]["schedulingGates"][0]["name"], kAdmissionGate);
  EXPECT_FALSE(pod["spec"].contains("nodeSelector"));
}

PlanOptions WithoutGatedWaitingPods() {
  PlanOptions options;
  options.gated_waiting_pods = false;
  return options;
}

// Without gated waiting pods, a job that waits has neither pods nor a Service;
// a released pod left over from a run is still stopped.
TEST(PlanCycle, WithoutGatedWaitingPodsAWaitingJobHasNoPods) {
  auto b = Cluster();
  for (int i = 0; i < 4; ++i) {
    const std::string name = "r" + std::to_string(i);
    b.Job("susan", name, 1, 1, HoldingStatus("Running", "node-0", {i}, kNow - 100, "susan"));
    b.JobPod("susan", name, 0, "node-0", "Running", false);
  }
  b.Job("susan", "train-a", 2, 1);
  b.JobPod("susan", "train-a", 0, "node-0", "Running", false);
  const Plan plan = PlanCycle(b.view(), WithoutGatedWaitingPods());
  EXPECT_TRUE(plan.pod_creates.empty());
  EXPECT_TRUE(plan.services.empty());
  ASSERT_EQ(plan.pod_deletes.size(), 1u);
  EXPECT_EQ(plan.pod_deletes[0].name, "train-a-0");
}

// Without gated waiting pods, room a victim still holds gets no gated pods
// either: the beneficiary's pods are created released once the room is free.
TEST(PlanCycle, WithoutGatedWaitingPodsAJobAdmittedIntoAStoppingVictimsRoomWaitsForIt) {
  auto b = SusanFillsTheNodeOverQuota();
  b.Job("joe", "j0", 1, 1);
  const Plan plan = PlanCycle(b.view(), WithoutGatedWaitingPods());
  ASSERT_NE(FindStatus(plan.admission_statuses, "j0"), nullptr);
  EXPECT_TRUE(plan.pod_creates.empty());
}

// And a job admitted at once still gets its pods created released.
TEST(PlanCycle, WithoutGatedWaitingPodsANewJobAdmittedAtOnceGetsReleasedPods) {
  auto b = Cluster();
  b.Job("susan", "train-a", 2, 1);
  const Plan plan = PlanCycle(b.view(), WithoutGatedWaitingPods());
  ASSERT_NE(FindStatus(plan.admission_statuses, "train-a"), nullptr);
  ASSERT_EQ(plan.pod_creates.size(), 2u);
  for (const auto& create : plan.pod_creates) EXPECT_FALSE(create.gated);
  EXPECT_EQ(plan.services.size(), 1u);
}

// The status a write leaves on the API server (keys it removes are null in the patch).
Json WrittenStatus(const StatusWrite& write) {
  Json status = write.patch["status"];
  for (auto it = status.begin(); it != status.end();) it = it->is_null() ? status.erase(it) : ++it;
  return status;
}

// The controller's engine, kept across cycles, follows what its own writes made of
// the cluster without being rebuilt, and decides as a fresh engine would.
TEST(PlanCycle, AKeptEngineFollowsItsOwnWritesAndDecidesAsAFreshOne) {
  PlanOptions options;
  options.engine.full_cycle_interval_seconds = 30;
  engine::LiveEngine live(options.engine);
  auto first = Cluster();
  for (int i = 0; i < 4; ++i) first.Job("susan", "s" + std::to_string(i), 1, 1);
  const Plan admitted = PlanCycle(first.view(), options, live);
  ASSERT_EQ(admitted.admission_statuses.size(), 4u);
  ViewBuilder next(kNow + 10);
  next.Node("node-0", 4, "train").Queue("train", "train");
  next.Project("susan", "susan", 2).Project("joe", "joe", 2);
  for (const StatusWrite& write : admitted.admission_statuses) {
    const Json status = WrittenStatus(write);
    next.Job("susan", write.name, 1, 1, status);
    next.JobPod("susan", write.name, 0, "node-0", "Running", false);
  }
  next.Job("joe", "j0", 1, 1);
  next.JobPod("joe", "j0", 0, "", "Pending", true);
  const Plan kept = PlanCycle(next.view(), options, live);
  const Plan fresh = PlanCycle(next.view(), options);
  EXPECT_EQ(live.stats().rebuilds, 1u);
  EXPECT_EQ(live.stats().synced, 1u);
  ASSERT_EQ(kept.decisions.preemptions.size(), 1u);
  ASSERT_EQ(fresh.decisions.preemptions.size(), 1u);
  EXPECT_EQ(kept.decisions.preemptions[0].victim, fresh.decisions.preemptions[0].victim);
  ASSERT_EQ(kept.decisions.admissions.size(), 1u);
  EXPECT_EQ(kept.decisions.admissions[0].job, "joe/j0");
  EXPECT_EQ(kept.decisions.admissions[0].replicas[0].devices,
            fresh.decisions.admissions[0].replicas[0].devices);
}

TEST(PlanCycle, AdmittedJobsGatedPodsArePinnedAndReleasedTogether) {
  auto b = Cluster();
  b.Job("susan", "train-a", 2, 1, HoldingStatus("Admitted", "node-0", {0}, kNow, "susan"));
  b.JobPod("susan", "train-a", 0, "", "Pending", true);
  b.JobPod("susan", "train-a", 1, "", "Pending", true);
  // The recorded placement names only replica 0: replica 1 is beyond it and stops.
  const Plan plan = PlanCycle(b.view(), {});
  ASSERT_EQ(plan.pod_releases.size(), 1u);
  const Json& patch = plan.pod_releases[0].patch;
  EXPECT_EQ(patch[0]["op"], "test");
  EXPECT_EQ(patch[0]["path"], "/metadata/uid");
  EXPECT_EQ(patch[2]["op"], "remove");
  EXPECT_EQ(patch[3]["value"]["kubernetes.io/hostname"], "node-0");
  ASSERT_EQ(plan.pod_deletes.size(), 1u);
  EXPECT_EQ(plan.pod_deletes[0].name, "train-a-1");
}

TEST(PlanCycle, ReclaimEvictsTheVictimAndHoldsTheBeneficiaryUntilItsPodsAreGone) {
  auto b = SusanFillsTheNodeOverQuota();
  b.Job("joe", "j0", 1, 1);
  b.JobPod("joe", "j0", 0, "", "Pending", true);
  const Plan plan = PlanCycle(b.view(), {});
  ASSERT_EQ(plan.decisions.preemptions.size(), 1u);
  const std::string victim = plan.decisions.preemptions[0].victim;
  EXPECT_EQ(victim, "susan/s3");  // The youngest over-quota job.
  const StatusWrite* preempted = FindStatus(plan.releasing_statuses, "s3");
  ASSERT_NE(preempted, nullptr);
  EXPECT_EQ(preempted->patch["status"]["phase"], "Preempted");
  EXPECT_EQ(preempted->patch["status"]["preemptionCount"], 1);
  EXPECT_TRUE(preempted->patch["status"]["placement"].is_null());
  EXPECT_EQ((*FindCondition(*preempted, "Preempted"))["status"], "True");
  // Said once, naming the job that takes the room; a Warning, as kube-scheduler's is.
  const std::string said =
      "reclaimed by project joe (below its quota of 2 GPUs in queue train) for job joe/j0";
  EXPECT_EQ((*FindCondition(*preempted, "Preempted"))["message"], said);
  ASSERT_FALSE(plan.events.empty());
  const auto event = std::find_if(plan.events.begin(), plan.events.end(),
                                  [](const EventNote& e) { return e.reason == "Preempted"; });
  ASSERT_NE(event, plan.events.end());
  EXPECT_EQ(event->type, "Warning");
  EXPECT_EQ(event->message, said);
  ASSERT_EQ(plan.pod_deletes.size(), 1u);
  EXPECT_TRUE(plan.pod_deletes[0].evict);
  EXPECT_EQ(plan.pod_deletes[0].grace_period_seconds, 30);
  const StatusWrite* admitted = FindStatus(plan.admission_statuses, "j0");
  ASSERT_NE(admitted, nullptr);
  // The victim's pod still holds its device: Joe's pod stays gated this cycle.
  EXPECT_TRUE(plan.pod_releases.empty());
}

// Each holding job shows the standing the victim order gives it: of Susan's four
// one-GPU jobs on her quota of 2, the two that started last are over it, whatever
// their statuses said before. A change rewrites the Admitted reason (keeping the
// generation it was written for) and records an Event; no change writes nothing.
TEST(PlanCycle, EachRunningJobShowsTheStandingTheVictimOrderGivesIt) {
  auto b = Cluster();
  for (int i = 0; i < 4; ++i) {
    const std::string name = "s" + std::to_string(i);
    Json status = HoldingStatus("Running", "node-0", {i}, kNow - 100 + i, "susan");
    const bool said_over = i == 0 || i == 3;
    status["overQuota"] = said_over;
    status["conditions"] = {{{"type", "Admitted"},
                             {"status", "True"},
                             {"reason", said_over ? "AdmittedOverQuota" : "Admitted"},
                             {"message", "admitted on node-0"},
                             {"lastTransitionTime", FormatTime(kNow - 100)},
                             {"observedGeneration", 1}}};
    b.Job("susan", name, 1, 1, status);
    b.JobPod("susan", name, 0, "node-0", "Running", false);
  }
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* s0 = FindStatus(plan.other_statuses, "s0");
  ASSERT_NE(s0, nullptr);
  ASSERT_TRUE(s0->patch["status"].contains("overQuota"));  // Removed: false is not written.
  EXPECT_NE(s0->patch["status"]["overQuota"], true);
  EXPECT_EQ((*FindCondition(*s0, "Admitted"))["reason"], "Admitted");
  EXPECT_EQ((*FindCondition(*s0, "Admitted"))["observedGeneration"], 1);
  const StatusWrite* s2 = FindStatus(plan.other_statuses, "s2");
  ASSERT_NE(s2, nullptr);
  EXPECT_EQ(s2->patch["status"]["overQuota"], true);
  EXPECT_EQ((*FindCondition(*s2, "Admitted"))["reason"], "AdmittedOverQuota");
  EXPECT_EQ((*FindCondition(*s2, "Admitted"))["message"],
            "admitted on node-0, over quota (may be reclaimed)");
  // A reclaim goes by the standing shown: its change is never left for the client's limit.
  EXPECT_FALSE(s0->courtesy);
  EXPECT_FALSE(s2->courtesy);
  for (const auto& [unchanged, over] : {std::pair{"s1", false}, std::pair{"s3", true}}) {
    const StatusWrite* write = FindStatus(plan.other_statuses, unchanged);
    if (write) {
      EXPECT_EQ(write->patch["status"].value("overQuota", false), over) << unchanged;
    }
  }
  std::map<std::string, std::string> events;
  for (const auto& event : plan.events) events[event.name] = event.reason;
  EXPECT_EQ(events,
            (std::map<std::string, std::string>{{"s0", "WithinQuota"}, {"s2", "OverQuota"}}));
}

// Why a job waits only informs: the writer may leave it for the client's limit.
TEST(PlanCycle, AWaitingJobsReasonIsACourtesy) {
  auto b = Cluster();
  b.Job("nowhere", "lost", 1, 1);
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* lost = FindStatus(plan.other_statuses, "lost");
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ((*FindCondition(*lost, "Admitted"))["reason"], "NoProject");
  EXPECT_TRUE(lost->courtesy);
}

// A preempted job that waits says first what stopped it, then what it waits for;
// every job shows the GPUs it asks for, whatever its phase, and overQuota false.
TEST(PlanCycle, APreemptedJobsReasonSaysItWasReclaimedAndWhatItNowWaitsFor) {
  auto b = SusanFillsTheNodeOverQuota();
  Json status = {{"phase", "Preempted"},
                 {"project", "susan"},
                 {"queuedTime", FormatTime(kNow - 300)},
                 {"preemptionCount", 1}};
  const std::string stopped =
      "reclaimed by project joe (below its quota of 2 GPUs in queue train) for job joe/j0";
  status["conditions"] = {{{"type", "Preempted"},
                           {"status", "True"},
                           {"reason", "Reclaimed"},
                           {"message", stopped},
                           {"lastTransitionTime", FormatTime(kNow - 60)},
                           {"observedGeneration", 1}}};
  b.Job("susan", "gang", 2, 1, status);
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* write = FindStatus(plan.other_statuses, "gang");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ((*FindCondition(*write, "Admitted"))["message"],
            stopped +
                "; now waits: project susan uses 4 GPUs of the 4 GPUs of queue train's pool (it "
                "has no limit of its own), this job needs 2 GPUs");
  EXPECT_EQ(write->patch["status"]["requestedGpu"], 2);
  EXPECT_EQ(write->patch["status"]["overQuota"], false);
}

TEST(PlanCycle, TwoJobsRecordedOnOneDeviceCannotBothHoldIt) {
  auto b = Cluster();
  b.Job("susan", "first", 1, 1, HoldingStatus("Running", "node-0", {2}, kNow - 50, "susan"));
  b.Job("joe", "second", 1, 1, HoldingStatus("Running", "node-0", {2}, kNow - 10, "joe"));
  b.JobPod("susan", "first", 0, "node-0", "Running", false);
  b.JobPod("joe", "second", 0, "node-0", "Running", false);
  const Plan plan = PlanCycle(b.view(), {});
  EXPECT_EQ(FindStatus(plan.releasing_statuses, "first"), nullptr);
  // The later one loses the device; its pod stops, and the engine places it anew.
  ASSERT_EQ(plan.pod_deletes.size(), 1u);
  EXPECT_EQ(plan.pod_deletes[0].name, "second-0");
  ASSERT_EQ(plan.events.size(), 2u);
  EXPECT_EQ(plan.events[0].reason, "PlacementConflict");
  const StatusWrite* second = FindStatus(plan.admission_statuses, "second");
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second->patch["status"]["placement"][0]["devices"][0], 2);
}

TEST(PlanCycle, PodsGpupoolDoesNotManageCountAgainstTheirNode) {
  auto b = Cluster();
  b.ForeignPod("other", "cuda-test", "node-0", 3);
  b.Job("susan", "big", 1, 2);
  const Plan plan = PlanCycle(b.view(), {});
  EXPECT_TRUE(plan.decisions.admissions.empty());
  ASSERT_EQ(plan.decisions.waiting.size(), 1u);
}

// A namespace stays with the project that claimed it first (by creation), never
// the first by name: a project made later cannot take it, and nothing in it is
// charged to the later one.
TEST(PlanCycle, AProjectMadeLaterCannotTakeANamespace) {
  auto b = Cluster();
  b.ProjectCreatedAt("susan", kNow - 3600);
  b.Project("aaa-thief", "susan", 4).ProjectCreatedAt("aaa-thief", kNow - 60);
  b.Job("susan", "sweep", 1, 1);
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* admitted = FindStatus(plan.admission_statuses, "sweep");
  ASSERT_NE(admitted, nullptr);
  EXPECT_EQ(admitted->patch["status"]["project"], "susan");
  const StatusWrite* thief = FindStatus(plan.other_statuses, "aaa-thief");
  ASSERT_NE(thief, nullptr);
  EXPECT_EQ((*FindCondition(*thief, "Ready"))["reason"], "NamespaceConflict");
  EXPECT_EQ((*FindCondition(*thief, "Ready"))["message"],
            "namespace \"susan\" already belongs to project susan, which claimed it first");
}

// A creationTimestamp counts whole seconds: of two projects made in one second,
// the one whose status shows it holding the namespace keeps it, whatever the
// UIDs, and once refused, the other stays refused.
TEST(PlanCycle, AProjectMadeInTheSameSecondCannotTakeANamespaceInForce) {
  for (const char* thief_status : {"", "NamespaceConflict"}) {
    auto b = Cluster();
    b.ProjectCreatedAt("susan", kNow - 60).ProjectReadyAs("susan", "Valid");
    b.Project("aaa-thief", "susan", 4).ProjectCreatedAt("aaa-thief", kNow - 60);
    if (*thief_status) b.ProjectReadyAs("aaa-thief", thief_status);
    b.Job("susan", "sweep", 1, 1);
    const Plan plan = PlanCycle(b.view(), {});
    const StatusWrite* admitted = FindStatus(plan.admission_statuses, "sweep");
    ASSERT_NE(admitted, nullptr);
    EXPECT_EQ(admitted->patch["status"]["project"], "susan");
    EXPECT_NE(ConditionField(plan.other_statuses, "aaa-thief", "Ready", "reason"), "Valid");
  }
  // Neither seen before, made in one second: the UID decides, the same each cycle.
  auto b = Cluster();
  b.ProjectCreatedAt("susan", kNow - 60);
  b.Project("aaa-thief", "susan", 4).ProjectCreatedAt("aaa-thief", kNow - 60);
  EXPECT_EQ(ConditionField(PlanCycle(b.view(), {}).other_statuses, "susan", "Ready", "reason"),
            "NamespaceConflict");
}

// The same for two queues selecting one pool.
TEST(PlanCycle, AQueueMadeInTheSameSecondCannotTakeAPoolInForce) {
  auto b = Cluster();
  b.QueueCreatedAt("train", kNow - 60).QueueReadyAs("train", "Valid");
  b.Queue("aaa-shadow", "train").QueueCreatedAt("aaa-shadow", kNow - 60);
  const Plan plan = PlanCycle(b.view(), {});
  EXPECT_EQ(ConditionField(plan.other_statuses, "aaa-shadow", "Ready", "reason"), "NodesOverlap");
  EXPECT_EQ(ConditionField(plan.other_statuses, "train", "Ready", "reason"), "Valid");
}

// Two queues selecting the same nodes would both promise their GPUs: the one
// created later is refused, naming the nodes, and so are its projects and jobs;
// the first keeps the pool, its capacity counted once, and says so too.
TEST(PlanCycle, AQueueSelectingNodesOfAnEarlierQueueIsNotInForce) {
  auto b = Cluster();
  b.QueueCreatedAt("train", kNow - 3600);
  b.Queue("aaa-shadow", "train").QueueCreatedAt("aaa-shadow", kNow - 60);
  b.Project("ana", "ana", 4, "aaa-shadow");
  b.Job("ana", "grab", 1, 4, nullptr, "aaa-shadow");
  b.Job("susan", "sweep", 1, 1);
  const Plan plan = PlanCycle(b.view(), {});
  ASSERT_EQ(plan.decisions.admissions.size(), 1u);
  EXPECT_EQ(plan.decisions.admissions[0].job, "susan/sweep");
  const std::string refusal =
      "queue aaa-shadow is not in force: its pool shares 1 node (node-0) with queue train, "
      "created first; a node belongs to one queue";
  const auto& statuses = plan.other_statuses;
  EXPECT_EQ(ConditionField(statuses, "aaa-shadow", "Ready", "reason"), "NodesOverlap");
  EXPECT_EQ(ConditionField(statuses, "aaa-shadow", "Ready", "message"), refusal);
  EXPECT_EQ(ConditionField(statuses, "train", "Ready", "message"),
            "the queue's pool has 4 GPUs on ready nodes; queue aaa-shadow selects 1 node of this "
            "pool too and is not in force");
  EXPECT_EQ(ConditionField(statuses, "ana", "Ready", "reason"), "QueueNotInForce");
  EXPECT_EQ(ConditionField(statuses, "grab", "Admitted", "reason"), "QueueNotInForce");
  EXPECT_EQ(ConditionField(statuses, "grab", "Admitted", "message"), refusal);
}

// A queue refused for overlapping sends its holding jobs back, saying why.
TEST(PlanCycle, AHoldingJobOfAQueueThatCameToOverlapGoesBackToWait) {
  auto b = Cluster();
  b.QueueCreatedAt("train", kNow - 60);
  b.Queue("old", "train").QueueCreatedAt("old", kNow - 3600);
  b.Job("susan", "s0", 1, 1, HoldingStatus("Running", "node-0", {0}, kNow - 100, "susan"));
  b.JobPod("susan", "s0", 0, "node-0", "Running", false);
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* s0 = FindStatus(plan.releasing_statuses, "s0");
  ASSERT_NE(s0, nullptr);
  EXPECT_EQ(s0->patch["status"]["phase"], "Queued");
  EXPECT_EQ((*FindCondition(*s0, "Admitted"))["reason"], "QueueNotInForce");
  ASSERT_EQ(plan.pod_deletes.size(), 1u);
}

// A pod is a job's through its ownerReference to that job, never through the
// labels a tenant can set: a pod gpupool did not create that wears a job's
// label, its own job's or a made-up one, is unmanaged use of its node.
TEST(PlanCycle, APodWearingAJobLabelWithoutItsJobsOwnershipCountsAgainstItsNode) {
  for (const std::string label : {"big", "ghost"}) {
    auto b = Cluster();
    b.ForeignPod("susan", "cuda-test", "node-0", 3, label);
    b.Job("susan", "big", 1, 2);
    const Plan plan = PlanCycle(b.view(), {});
    EXPECT_TRUE(plan.decisions.admissions.empty()) << label;
    EXPECT_EQ(plan.decisions.waiting.size(), 1u) << label;
  }
}

// A job that cannot start before a person acts (here: its queue does not
// exist) has no pods: gated pods it had are deleted, none are created.
TEST(PlanCycle, AJobThatWaitsForAPersonHasNoPods) {
  auto b = Cluster();
  b.Job("susan", "lost", 2, 1, nullptr, "nosuch");
  b.JobPod("susan", "lost", 0, "", "Pending", true);
  const Plan plan = PlanCycle(b.view(), {});
  EXPECT_TRUE(plan.pod_creates.empty());
  EXPECT_TRUE(plan.services.empty());
  ASSERT_EQ(plan.pod_deletes.size(), 1u);
  EXPECT_EQ(plan.pod_deletes[0].name, "lost-0");
  const StatusWrite* status = FindStatus(plan.other_statuses, "lost");
  ASSERT_NE(status, nullptr);
  EXPECT_EQ((*FindCondition(*status, "Admitted"))["reason"], "UnknownQueue");
}

// A running job whose spec was edited after its admission (generation 2, the
// admission's 1), in queue `queue` asking for `gpus` per replica.
Json EditedRunningJob(const std::string& name, const Json& gpus, const std::string& queue,
                      const std::string& workload_class = "Train",
                      const std::string& admitted_queue = "") {
  Json status = HoldingStatus("Running", "node-0", {0}, kNow - 100, "susan");
  status["overQuota"] = true;
  if (!admitted_queue.empty()) status["admittedQueue"] = admitted_queue;
  status["conditions"] = {{{"type", "Admitted"},
                           {"status", "True"},
                           {"reason", "Admitted"},
                           {"message", "admitted on node-0"},
                           {"lastTransitionTime", FormatTime(kNow - 100)},
                           {"observedGeneration", 1}}};
  return {{"apiVersion", "gpupool.dev/v1alpha1"},
          {"kind", "TrainingJob"},
          {"metadata",
           {{"name", name},
            {"namespace", "susan"},
            {"uid", ViewBuilder::UidOf("susan", name)},
            {"generation", 2},
            {"creationTimestamp", FormatTime(kNow - 200)}}},
          {"spec",
           {{"queue", queue},
            {"gpusPerReplica", gpus},
            {"priority", 5},
            {"workloadClass", workload_class},
            {"template", {{"spec", {{"containers", {{{"name", "main"}, {"image", "x"}}}}}}}}}},
          {"status", status}};
}

// An edit that its placement no longer fits (more GPUs, a class that never runs
// over quota, another pool) sends the job back to its queue, saying so; its pods
// stop as a preemption's do.
TEST(PlanCycle, ARunningJobWhoseShapeWasEditedIsRequeuedSayingWhy) {
  for (const auto& [gpus, queue, workload_class, admitted_queue, change] :
       std::vector<std::tuple<Json, std::string, std::string, std::string, std::string>>{
           {2, "train", "Train", "train", "gpusPerReplica is now 2, it was 1"},
           {1, "train", "Inference", "train",
            "workloadClass is now Inference, which never runs over quota"},
           {1, "spare", "Train", "train", "queue is now spare, it was admitted into train"},
           // A status from before admittedQueue: the new queue's pool tells.
           {1, "build", "Train", "", "queue is now build, whose pool does not hold node node-0"}}) {
    auto b = Cluster();
    b.Node("node-1", 2, "build").Queue("build", "build", "Fixed");
    b.Node("node-2", 2, "spare").Queue("spare", "spare", "Fixed");
    b.RawJob(EditedRunningJob("edited", gpus, queue, workload_class, admitted_queue));
    b.JobPod("susan", "edited", 0, "node-0", "Running", false);
    const Plan plan = PlanCycle(b.view(), {});
    ASSERT_EQ(plan.pod_deletes.size(), 1u) << change;
    EXPECT_TRUE(plan.pod_deletes[0].evict);
    ASSERT_FALSE(plan.events.empty());
    EXPECT_EQ(plan.events[0].reason, "SpecChanged");
    EXPECT_EQ(plan.events[0].type, "Normal");
    EXPECT_EQ(plan.events[0].message, "its spec changed while it held GPUs (" + change +
                                          "): it waits to be admitted again with the new spec");
    // Admitted again at once where the new spec fits (a GPU more on node-0);
    // waiting where it does not (no quota in build).
    const StatusWrite* readmitted = FindStatus(plan.admission_statuses, "edited");
    const StatusWrite* waiting = FindStatus(plan.releasing_statuses, "edited");
    ASSERT_NE(queue == "train" ? readmitted : waiting, nullptr) << change;
    if (readmitted) {
      EXPECT_EQ(readmitted->patch["status"].value("admittedQueue", ""), "train");
    }
    if (waiting) {
      EXPECT_EQ((*FindCondition(*waiting, "Admitted"))["status"], "False");
      EXPECT_TRUE(waiting->patch["status"]["placement"].is_null());
      EXPECT_TRUE(waiting->patch["status"].value("admittedQueue", Json()).is_null());
    }
  }
}

// An edit its placement still fits (here its priority) changes nothing.
TEST(PlanCycle, ARunningJobWhosePriorityWasEditedRunsOn) {
  auto b = Cluster();
  b.RawJob(EditedRunningJob("edited", 1, "train"));
  b.JobPod("susan", "edited", 0, "node-0", "Running", false);
  const Plan plan = PlanCycle(b.view(), {});
  EXPECT_TRUE(plan.pod_deletes.empty());
  EXPECT_EQ(FindStatus(plan.releasing_statuses, "edited"), nullptr);
}

TEST(PlanCycle, InvalidJobGetsAConditionAndAWarningAndNothingElse) {
  auto b = Cluster();
  b.Job("susan", "broken", 2, "0.5");  // A fraction needs replicas: 1.
  const Plan plan = PlanCycle(b.view(), {});
  EXPECT_TRUE(plan.pod_creates.empty());
  EXPECT_TRUE(plan.decisions.admissions.empty());
  const StatusWrite* status = FindStatus(plan.other_statuses, "broken");
  ASSERT_NE(status, nullptr);
  const Json& condition = *FindCondition(*status, "Admitted");
  EXPECT_EQ(condition["reason"], "InvalidSpec");
  EXPECT_NE(condition["message"].get<std::string>().find("spec.gpusPerReplica"), std::string::npos);
  ASSERT_EQ(plan.events.size(), 1u);
  EXPECT_EQ(plan.events[0].type, "Warning");
}

TEST(PlanCycle, JobInANamespaceNoProjectOwnsWaitsAndSaysWhy) {
  auto b = Cluster();
  b.Job("nobody", "orphan", 1, 1);
  const Plan plan = PlanCycle(b.view(), {});
  EXPECT_TRUE(plan.pod_creates.empty());
  const StatusWrite* status = FindStatus(plan.other_statuses, "orphan");
  ASSERT_NE(status, nullptr);
  EXPECT_EQ((*FindCondition(*status, "Admitted"))["reason"], "NoProject");
}

TEST(PlanCycle, FailedPodRestartsTheJobUntilTheBackoffLimit) {
  auto b = Cluster();
  Json status = HoldingStatus("Running", "node-0", {0}, kNow - 100, "susan");
  b.Job("susan", "flaky", 1, 1, status);
  b.JobPod("susan", "flaky", 0, "node-0", "Failed", false);
  Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* write = FindStatus(plan.releasing_statuses, "flaky");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(write->patch["status"]["phase"], "Queued");
  EXPECT_EQ(write->patch["status"]["restartCount"], 1);
  ASSERT_EQ(plan.pod_deletes.size(), 1u);

  auto again = Cluster();
  status["restartCount"] = 3;  // backoffLimit defaults to 3.
  again.Job("susan", "flaky", 1, 1, status);
  again.JobPod("susan", "flaky", 0, "node-0", "Failed", false);
  plan = PlanCycle(again.view(), {});
  write = FindStatus(plan.finished_statuses, "flaky");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(write->patch["status"]["phase"], "Failed");
}

// A finished job's status goes before the admissions only while a pod of it
// still holds devices (it is stopped this cycle); once every pod has ended, the
// devices are free whatever the status says, and the admissions go first.
TEST(PlanCycle, AFinishedJobsStatusPrecedesAdmissionsOnlyWhileItsPodsHoldDevices) {
  auto b = Cluster();
  Json status = HoldingStatus("Running", "node-0", {0}, kNow - 100, "susan");
  status["placement"].push_back({{"replica", 1}, {"node", "node-0"}, {"devices", {1}}});
  status["allocatedGpu"] = 2;
  status["restartCount"] = 3;
  b.Job("susan", "half", 2, 1, status);
  b.JobPod("susan", "half", 0, "node-0", "Failed", false);
  b.JobPod("susan", "half", 1, "node-0", "Running", false);
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* write = FindStatus(plan.releasing_statuses, "half");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(write->patch["status"]["phase"], "Failed");
  EXPECT_EQ(FindStatus(plan.finished_statuses, "half"), nullptr);
  ASSERT_EQ(plan.pod_deletes.size(), 1u);
  EXPECT_EQ(plan.pod_deletes[0].name, "half-1");
}

TEST(PlanCycle, JobOnANodeThatIsNotReadyGoesBackToTheQueueAndBacksOff) {
  ViewBuilder b(kNow);
  b.Node("node-0", 4, "train", false).Node("node-1", 4, "train").Queue("train", "train");
  b.Project("susan", "susan", 2);
  b.Job("susan", "a", 1, 1, HoldingStatus("Running", "node-0", {0}, kNow - 100, "susan"));
  b.JobPod("susan", "a", 0, "node-0", "Running", false);
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* write = FindStatus(plan.releasing_statuses, "a");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ((*FindCondition(*write, "Admitted"))["reason"], "NodeLost");
  ASSERT_EQ(plan.pod_deletes.size(), 1u);
  EXPECT_EQ(plan.pod_deletes[0].grace_period_seconds, 0);
  EXPECT_TRUE(plan.decisions.admissions.empty());  // Not in the same cycle: it backs off.
  EXPECT_GT(plan.wake_at, kNow);
}

TEST(PlanCycle, RunningJobWhosePodWasDeletedSaysWhichAndWhetherItsNodeWasDrained) {
  for (const bool drained : {false, true}) {
    ViewBuilder b(kNow);
    b.Node("node-0", 4, "train").Node("node-1", 4, "train").Queue("train", "train");
    if (drained) b.Cordon("node-1");
    b.Project("susan", "susan", 2);
    // Its only pod was evicted: gone from the API.
    b.Job("susan", "a", 1, 1, HoldingStatus("Running", "node-1", {0}, kNow - 100, "susan"));
    const Plan plan = PlanCycle(b.view(), {});
    const StatusWrite* write = FindStatus(plan.releasing_statuses, "a");
    ASSERT_NE(write, nullptr) << drained;
    const Json& admitted = *FindCondition(*write, "Admitted");
    EXPECT_EQ(admitted["reason"], "ReplicaLost");
    const std::string expected = std::string("the pod of replica 0 on node node-1 was deleted") +
                                 (drained ? " (the node is cordoned: drained)" : "");
    EXPECT_EQ(admitted["message"], expected);
    ASSERT_EQ(plan.events.size(), 1u);
    EXPECT_EQ(plan.events[0].message, expected);
  }
}

TEST(PlanCycle, AdmittedPodsThatDoNotStartInTimeSendTheJobBack) {
  auto b = Cluster();
  b.Job("susan", "slow", 1, 1, HoldingStatus("Admitted", "node-0", {0}, kNow - 400, "susan"));
  b.JobPod("susan", "slow", 0, "node-0", "Pending", false);
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* write = FindStatus(plan.releasing_statuses, "slow");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ((*FindCondition(*write, "Admitted"))["reason"], "StartTimeout");
}

TEST(PlanCycle, EveryReplicaSucceededMeansTheJobSucceeded) {
  auto b = Cluster();
  b.Job("susan", "done", 1, 1, HoldingStatus("Running", "node-0", {0}, kNow - 400, "susan"));
  b.JobPod("susan", "done", 0, "node-0", "Succeeded", false);
  const Plan plan = PlanCycle(b.view(), {});
  const StatusWrite* write = FindStatus(plan.finished_statuses, "done");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(write->patch["status"]["phase"], "Succeeded");
  EXPECT_EQ(FindStatus(plan.releasing_statuses, "done"), nullptr);  // Its devices are free.
  EXPECT_TRUE(plan.pod_deletes.empty());  // Finished pods stay for their logs.
}

// A finished job's pod that still runs is stopped; a finished job whose pods
// have all finished is left alone (its finished pods stay for their logs).
TEST(PlanCycle, FinishedJobsPodThatStillRunsIsStoppedAndASettledOneIsLeftAlone) {
  auto b = Cluster();
  Json finished = HoldingStatus("Succeeded", "node-0", {0}, kNow - 400, "susan");
  finished.erase("placement");
  finished["completionTime"] = FormatTime(kNow - 10);
  b.Job("susan", "settled", 1, 1, finished);
  b.JobPod("susan", "settled", 0, "node-0", "Succeeded", false);
  b.Job("susan", "lingering", 1, 1, finished);
  b.JobPod("susan", "lingering", 0, "node-0", "Running", false);
  const Plan plan = PlanCycle(b.view(), {});
  ASSERT_EQ(plan.pod_deletes.size(), 1u);
  EXPECT_EQ(plan.pod_deletes[0].name, "lingering-0");
  for (const auto* writes : plan.StatusWrites())
    for (const auto& write : *writes) EXPECT_NE(write.kind, Kind::kTrainingJob) << write.name;
}

// A status edited by hand may place replicas the job does not have: they are
// skipped, never read past the job's pods.
TEST(PlanCycle, PlacementOfAReplicaTheJobDoesNotHaveIsSkipped) {
  auto b = Cluster();
  Json status = HoldingStatus("Admitted", "node-0", {0}, kNow, "susan");
  status["placement"].push_back({{"replica", 5}, {"node", "node-0"}, {"devices", {1}}});
  status["placement"].push_back({{"replica", -1}, {"node", "node-0"}, {"devices", {2}}});
  b.Job("susan", "edited", 1, 1, status);
  const Plan plan = PlanCycle(b.view(), {});
  for (const auto& create : plan.pod_creates) EXPECT_EQ(create.name, "edited-0");
}

PlanOptions SharingOptions() {
  PlanOptions options;
  options.reservation_namespace = "gpupool-system";
  return options;
}

// Ana's notebook holds half of device slot 1 of a 2-GPU build node.
ViewBuilder NotebookOnSlotOne() {
  ViewBuilder b(kNow);
  b.Node("node-0", 2, "build").Queue("build", "build", "Fixed");
  b.Project("ana", "ana", 2, "build");
  b.Job("ana", "notebook", 1, "0.5", HoldingStatus("Admitted", "node-0", {1}, kNow, "ana"),
        "build");
  b.JobPod("ana", "notebook", 0, "", "Pending", true, 0);
  return b;
}

std::map<std::string, Json> AddedByRelease(const PodRelease& release) {
  std::map<std::string, Json> added;
  for (const auto& op : release.patch)
    if (op["op"] == "add") added[op["path"]] = op["value"];
  return added;
}

// The first fraction on a device asks for a reservation pod, and waits for it.
TEST(PlanCycle, FirstFractionOnADeviceCreatesItsReservationPodAndWaits) {
  const Plan plan = PlanCycle(NotebookOnSlotOne().view(), SharingOptions());
  EXPECT_TRUE(plan.pod_releases.empty());
  ASSERT_EQ(plan.reservation_pods.size(), 1u);
  const Json& pod = plan.reservation_pods[0];
  EXPECT_EQ(pod["metadata"]["name"], "gpupool-reservation-node-0-1");
  EXPECT_EQ(pod["metadata"]["namespace"], "gpupool-system");
  EXPECT_EQ(pod["metadata"]["labels"][kReservationLabel], "1");
  EXPECT_EQ(pod["spec"]["nodeSelector"][kHostnameLabel], "node-0");
  const Json& resources = pod["spec"]["containers"][0]["resources"];
  EXPECT_EQ(resources["requests"]["nvidia.com/gpu"], "1");
  EXPECT_EQ(resources["limits"]["nvidia.com/gpu"], "1");
  EXPECT_FALSE(pod["spec"].contains("schedulingGates"));
  // The init container reports the device; the container holds the same one.
  const Json& report = pod["spec"]["initContainers"][0];
  EXPECT_EQ(report["name"], kReportContainer);
  EXPECT_EQ(report["command"], Json::array({"/usr/local/bin/gpupool", "reserve-device", "report"}));
  EXPECT_EQ(report["resources"], resources);
  EXPECT_EQ(pod["spec"]["containers"][0]["command"][2], "hold");
  // No API credentials: nothing the pod runs can write to the API server.
  EXPECT_EQ(pod["spec"]["automountServiceAccountToken"], false);
  EXPECT_FALSE(pod["spec"].contains("serviceAccountName"));
}

// Only the kubelet writes a reservation's report: an annotation anyone could
// write, or a report container that failed, names no device.
TEST(PlanCycle, AReservationsDeviceIsItsReportContainersTerminationMessageOnly) {
  const auto report = [](const std::string& name, int exit_code, const std::string& message) {
    return Json{{"name", name},
                {"state", {{"terminated", {{"exitCode", exit_code}, {"message", message}}}}}};
  };
  Json pod = {{"metadata",
               {{"name", "gpupool-reservation-node-0-1"},
                {"namespace", "gpupool-system"},
                {"annotations", {{"gpupool.dev/visible-devices", "GPU-forged"}}}}},
              {"status", {{"phase", "Running"}}}};
  EXPECT_EQ(DecodePodView(pod).visible_devices, "");
  pod["status"]["initContainerStatuses"] = {report("other", 0, "GPU-other")};
  EXPECT_EQ(DecodePodView(pod).visible_devices, "");
  pod["status"]["initContainerStatuses"] = {report(kReportContainer, 1, "GPU-half")};
  EXPECT_EQ(DecodePodView(pod).visible_devices, "");
  pod["status"]["initContainerStatuses"] = {report(kReportContainer, 0, "GPU-5f2e\n")};
  EXPECT_EQ(DecodePodView(pod).visible_devices, "GPU-5f2e");
}

// A node name near the length limit still gives a valid pod name, one per slot.
TEST(PlanCycle, ReservationPodNameStaysWithinTheLimitForLongNodeNames) {
  const std::string node(250, 'n');
  ViewBuilder b(kNow);
  b.Node(node, 2, "build").Queue("build", "build", "Fixed");
  b.Project("ana", "ana", 2, "build");
  b.Job("ana", "notebook", 1, "0.5", HoldingStatus("Admitted", node, {1}, kNow, "ana"), "build");
  const Plan plan = PlanCycle(b.view(), SharingOptions());
  ASSERT_EQ(plan.reservation_pods.size(), 1u);
  const std::string name = plan.reservation_pods[0]["metadata"]["name"];
  EXPECT_LE(name.size(), 253u);
  EXPECT_EQ(name.substr(name.size() - 2), "-1");
}

// Bound but not yet given a device by the device plugin: the fraction still waits.
TEST(PlanCycle, FractionWaitsWhileItsReservationHoldsNoDevice) {
  auto b = NotebookOnSlotOne();
  b.ReservationPod("gpupool-system", "node-0", 1, "");
  const Plan plan = PlanCycle(b.view(), SharingOptions());
  EXPECT_TRUE(plan.pod_releases.empty());
  EXPECT_TRUE(plan.reservation_pods.empty());
  EXPECT_TRUE(plan.pod_deletes.empty());
}

// A reservation whose containers run but that reported nothing (its report
// failed, or an earlier version made it) never will: it is made again.
TEST(PlanCycle, AReservationRunningWithoutAReportIsMadeAgain) {
  auto b = NotebookOnSlotOne();
  b.ReservationPod("gpupool-system", "node-0", 1, "");
  b.SetPodPhase("gpupool-system", "gpupool-reservation-node-0-1", PodPhase::kRunning);
  const Plan plan = PlanCycle(b.view(), SharingOptions());
  EXPECT_TRUE(plan.pod_releases.empty());
  ASSERT_EQ(plan.pod_deletes.size(), 1u);
  EXPECT_EQ(plan.pod_deletes[0].name, "gpupool-reservation-node-0-1");
}

// Once the reservation holds a device, the fraction is released to that device:
// the one the device plugin gave, not the engine's slot number.
TEST(PlanCycle, FractionIsToldTheDeviceItsReservationHoldsAndItsShare) {
  auto b = NotebookOnSlotOne();
  b.ReservationPod("gpupool-system", "node-0", 1, "GPU-0c7e");
  const Plan plan = PlanCycle(b.view(), SharingOptions());
  ASSERT_EQ(plan.pod_releases.size(), 1u);
  auto added = AddedByRelease(plan.pod_releases[0]);
  EXPECT_EQ(added["/metadata/annotations/gpupool.dev~1gpu-device"], "GPU-0c7e");
  EXPECT_EQ(added["/metadata/annotations/gpupool.dev~1gpu-fraction"], "0.5");
  EXPECT_TRUE(plan.reservation_pods.empty());
}

// A reservation no fraction uses any more is deleted; one some fraction's pod
// still runs on is kept until that pod stops.
TEST(PlanCycle, ReservationIsDeletedOnceTheLastFractionOnItStops) {
  ViewBuilder b(kNow);
  b.Node("node-0", 2, "build").Queue("build", "build", "Fixed");
  b.Project("ana", "ana", 1, "build");
  b.ReservationPod("gpupool-system", "node-0", 0, "0");
  b.ReservationPod("gpupool-system", "node-0", 1, "1");
  Json done = HoldingStatus("Succeeded", "node-0", {1}, kNow - 100, "ana");
  b.Job("ana", "stopping", 1, "0.5", done, "build");
  b.FractionPod("ana", "stopping", "node-0", "1");  // Finished job, its pod not yet stopped.
  const Plan plan = PlanCycle(b.view(), SharingOptions());
  std::set<std::string> deleted;
  for (const auto& remove : plan.pod_deletes) deleted.insert(remove.name);
  EXPECT_TRUE(deleted.count("gpupool-reservation-node-0-0"));
  EXPECT_FALSE(deleted.count("gpupool-reservation-node-0-1"));
}

// A reservation pod is the fractions' use, which the engine already counts: the
// node's other GPU stays free for a whole-GPU job. A pod with the same label
// outside the controller's namespace is someone else's, and takes that GPU.
TEST(PlanCycle, ReservationPodIsNotUnmanagedUseButALookalikeElsewhereIs) {
  for (const std::string ns : {"gpupool-system", "elsewhere"}) {
    auto b = NotebookOnSlotOne();
    b.ReservationPod(ns, "node-0", 1, "1");
    b.Job("ana", "whole", 1, 1, nullptr, "build");
    const Plan plan = PlanCycle(b.view(), SharingOptions());
    const StatusWrite* admitted = FindStatus(plan.admission_statuses, "whole");
    EXPECT_EQ(admitted != nullptr, ns == "gpupool-system") << ns;
  }
}

// A running fraction whose reservation is gone could share its device with a
// whole-GPU pod: it goes back to its queue.
TEST(PlanCycle, FractionWhoseReservationIsLostIsRequeued) {
  for (const bool reservation_stopping : {false, true}) {
    ViewBuilder b(kNow);
    b.Node("node-0", 2, "build").Queue("build", "build", "Fixed");
    b.Project("ana", "ana", 1, "build");
    b.Job("ana", "notebook", 1, "0.5", HoldingStatus("Running", "node-0", {1}, kNow - 100, "ana"),
          "build");
    b.FractionPod("ana", "notebook", "node-0", "1");
    if (reservation_stopping) b.ReservationPod("gpupool-system", "node-0", 1, "1", true, true);
    const Plan plan = PlanCycle(b.view(), SharingOptions());
    const StatusWrite* requeued = FindStatus(plan.releasing_statuses, "notebook");
    ASSERT_NE(requeued, nullptr) << reservation_stopping;
    EXPECT_NE(requeued->patch.dump().find("ReservationLost"), std::string::npos);
  }
}

// A reservation's report must name one device of its node that no other
// reservation names: "all", a list, an index the node does not have, or a
// device reported twice tells the fractions nothing, and a Warning says why.
TEST(PlanCycle, AReservationReportThatIsNotOneDeviceOfItsNodeIsRefused) {
  for (const std::string report : {"all", "0,1", "7", "none", "GPU-a b"}) {
    auto b = NotebookOnSlotOne();
    b.ReservationPod("gpupool-system", "node-0", 1, report);
    const Plan plan = PlanCycle(b.view(), SharingOptions());
    EXPECT_TRUE(plan.pod_releases.empty()) << report;
    ASSERT_EQ(plan.events.size(), 1u) << report;
    EXPECT_EQ(plan.events[0].reason, "DeviceReportRefused");
    EXPECT_EQ(plan.events[0].name, "gpupool-reservation-node-0-1");
    EXPECT_EQ(plan.events[0].type, "Warning");
  }
  auto twice = NotebookOnSlotOne();
  twice.ReservationPod("gpupool-system", "node-0", 0, "GPU-0c7e");
  twice.ReservationPod("gpupool-system", "node-0", 1, "GPU-0c7e");
  const Plan plan = PlanCycle(twice.view(), SharingOptions());
  EXPECT_TRUE(plan.pod_releases.empty());
  ASSERT_FALSE(plan.events.empty());
  EXPECT_NE(plan.events.back().message.find("reported by another reservation"), std::string::npos);
}

// A report rewritten after the fraction started is refused, and decides
// nothing: the reservation still holds its device, so the fraction runs on.
TEST(PlanCycle, ARunningFractionOutlivesAForgedReportOfItsReservation) {
  ViewBuilder b(kNow);
  b.Node("node-0", 2, "build").Queue("build", "build", "Fixed");
  b.Project("ana", "ana", 1, "build");
  b.Job("ana", "notebook", 1, "0.5", HoldingStatus("Running", "node-0", {1}, kNow - 100, "ana"),
        "build");
  b.FractionPod("ana", "notebook", "node-0", "1");
  b.ReservationPod("gpupool-system", "node-0", 1, "all");
  const Plan plan = PlanCycle(b.view(), SharingOptions());
  EXPECT_EQ(FindStatus(plan.releasing_statuses, "notebook"), nullptr);
  EXPECT_TRUE(plan.pod_deletes.empty());
}

TEST(PlanCycle, NothingChangedMeansNothingWritten) {
  auto b = Cluster();
  b.Job("susan", "a", 1, 1);
  const Plan first = PlanCycle(b.view(), {});
  const StatusWrite* status = FindStatus(first.admission_statuses, "a");
  ASSERT_NE(status, nullptr);
  // The same cluster once the writes have landed.
  auto after = Cluster();
  Json written = status->patch["status"];
  after.Job("susan", "a", 1, 1, written);
  after.JobPod("susan", "a", 0, "node-0", "Pending", false);
  const Plan second = PlanCycle(after.view(), {});
  EXPECT_EQ(FindStatus(second.admission_statuses, "a"), nullptr);
  EXPECT_EQ(FindStatus(second.other_statuses, "a"), nullptr);
  EXPECT_TRUE(second.pod_creates.empty());
  EXPECT_TRUE(second.pod_releases.empty());
}

// Susan's one-GPU job with spec.suspend set and `status` (null: running on node-0).
Json SuspendableJob(const std::string& name, bool suspend, const Json& status = nullptr) {
  Json job = EditedRunningJob(name, 1, "train");
  job["spec"]["suspend"] = suspend;
  if (!status.is_null()) job["status"] = status;
  return job;
}

const PodDelete* FindDelete(const Plan& plan, const std::string& pod) {
  for (const auto& remove : plan.pod_deletes)
    if (remove.name == pod) return &remove;
  return nullptr;
}

// spec.suspend as on a batch Job: a running job's pods are evicted with the
// queue's grace period, its GPUs go back, it leaves the line (phase
// Suspended); resumed, it queues anew at the back of its line.
TEST(PlanCycle, ASuspendedJobStopsLeavesTheLineAndQueuesAnewWhenResumed) {
  auto b = Cluster();
  b.RawJob(SuspendableJob("s0", true));
  b.JobPod("susan", "s0", 0, "node-0", "Running", false);
  const Plan plan = PlanCycle(b.view(), {});
  const PodDelete* stop = FindDelete(plan, "s0-0");
  ASSERT_NE(stop, nullptr);
  EXPECT_TRUE(stop->evict);
  EXPECT_EQ(stop->grace_period_seconds, 30);
  const StatusWrite* status = FindStatus(plan.releasing_statuses, "s0");
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(status->patch["status"]["phase"], "Suspended");
  EXPECT_TRUE(status->patch["status"]["placement"].is_null()) << status->patch.dump();  // Removed.
  EXPECT_EQ(ConditionField(plan.releasing_statuses, "s0", "Admitted", "reason"), "Suspended");

  auto waiting = Cluster();  // Suspended while it waited: its gated pod goes too.
  Json suspended = HoldingStatus("Suspended", "node-0", {0}, kNow - 100, "susan");
  suspended.erase("placement");
  suspended.erase("allocatedGpu");
  waiting.RawJob(SuspendableJob("s1", true, suspended));
  waiting.JobPod("susan", "s1", 0, "", "Pending", true);
  const Plan again = PlanCycle(waiting.view(), {});
  EXPECT_NE(FindDelete(again, "s1-0"), nullptr);
  EXPECT_TRUE(again.decisions.admissions.empty());

  auto resumed = Cluster();
  resumed.RawJob(SuspendableJob("s1", false, suspended));
  const Plan back = PlanCycle(resumed.view(), {});
  const StatusWrite* queued = FindStatus(back.admission_statuses, "s1");
  ASSERT_NE(queued, nullptr) << "resumed into a free node, it is admitted";
  EXPECT_EQ(queued->patch["status"]["queuedTime"], FormatTime(kNow));
  bool noted = false;
  for (const auto& event : back.events) noted = noted || event.reason == "Resumed";
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace gpupool::op
