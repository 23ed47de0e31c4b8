// Pods of other owners that ask gpupool to schedule them (docs/workloads.md):
// PlanCycle on pods as the API server holds them, the writes applied to them as
// the API server would apply them, and the next cycle reading the result.
#include <gtest/gtest.h>

#include "gpupool/operator/plan.h"
#include "view_builder.h"

namespace gpupool::op {
namespace {

using testing::kNow;
using testing::ViewBuilder;

// A pod that asks for `gpus` GPUs of queue "train", held by gpupool's gate.
Json AskingPod(const std::string& ns, const std::string& name, int gpus) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", ns},
            {"uid", "uid-" + name},
            {"creationTimestamp", FormatTime(kNow - 30)},
            {"labels", {{kQueueLabel, "train"}}}}},
          {"spec",
           {{"schedulingGates", {{{"name", kAdmissionGate}}}},
            {"containers",
             {{{"name", "main"},
               {"image", "trainer"},
               {"resources", {{"limits", {{"nvidia.com/gpu", gpus}}}}}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

Json InGroup(Json pod, const std::string& group, int size) {
  pod["metadata"]["labels"][kPodGroupLabel] = group;
  pod["metadata"]["labels"][kPodGroupSizeLabel] = std::to_string(size);
  return pod;
}

// `object` controlled by the `kind` (of `api_version`) named `owner`, whose uid is "uid-OWNER".
Json OwnedBy(Json object, const std::string& api_version, const std::string& kind,
             const std::string& owner) {
  object["metadata"]["ownerReferences"] = {{{"apiVersion", api_version},
                                            {"kind", kind},
                                            {"name", owner},
                                            {"uid", "uid-" + owner},
                                            {"controller", true}}};
  return object;
}

// A pod the batch/v1 Job `job` (uid "uid-JOB") made, naming no group.
Json OfBatchJob(Json pod, const std::string& job) {
  return OwnedBy(std::move(pod), "batch/v1", "Job", job);
}

// The cluster of these tests: 8 GPUs on one node, Susan and Joe guaranteed 4 each.
ViewBuilder GroupCluster() {
  ViewBuilder b(kNow);
  b.Node("node-0", 8, "train").Queue("train", "train");
  b.Project("susan", "susan", 4).Project("joe", "joe", 4);
  return b;
}

ViewBuilder With(const std::vector<Json>& pods, ViewBuilder b = GroupCluster()) {
  for (const Json& pod : pods) b.RawPod(pod);
  return b;
}

// The pods as the API server holds them after the plan's releases, the
// scheduler's binding and the kubelet's start, and its condition patches.
std::vector<Json> Applied(std::vector<Json> pods, const Plan& plan) {
  for (Json& pod : pods) {
    const std::string name = pod["metadata"]["name"];
    for (const auto& release : plan.pod_releases) {
      if (release.name != name) continue;
      pod = pod.patch(release.patch);
      if (pod["spec"]["schedulingGates"].empty())
        pod["spec"].erase("schedulingGates");  // omitempty
      pod["spec"]["nodeName"] = pod["spec"]["nodeSelector"][kHostnameLabel];
      pod["status"]["phase"] = "Running";
    }
    for (const auto& patch : plan.pod_patches) {
      if (patch.name != name) continue;
      if (patch.status) {
        pod["status"]["conditions"] = patch.patch["status"]["conditions"];
      } else {
        pod.merge_patch(patch.patch);
      }
    }
  }
  return pods;
}

const EventNote* FindEvent(const Plan& plan, const std::string& name, const std::string& reason) {
  for (const auto& event : plan.events)
    if (event.name == name && event.reason == reason) return &event;
  return nullptr;
}

// The reason of gpupool's condition as the plan writes it on pod `name` ("" when not written).
std::string WrittenReason(const Plan& plan, const std::string& name) {
  for (const auto& patch : plan.pod_patches) {
    if (patch.name != name || !patch.status) continue;
    const Json& condition = patch.patch["status"]["conditions"][0];
    EXPECT_EQ(condition["type"], kAdmittedCondition);
    return condition["reason"];
  }
  return "";
}

bool Evicted(const Plan& plan, const std::string& name) {
  for (const auto& remove : plan.pod_deletes)
    if (remove.name == name) return remove.evict;
  return false;
}

TEST(PodGroups, ABarePodWithinQuotaIsReleasedToItsSlotAndHoldsItNextCycle) {
  const std::vector<Json> pods = {AskingPod("susan", "notebook", 2)};
  const Plan first = PlanCycle(With(pods).view(), {});
  ASSERT_EQ(first.pod_releases.size(), 1u);
  const Json released = Applied(pods, first)[0];
  EXPECT_FALSE(released["spec"].contains("schedulingGates"));
  EXPECT_EQ(released["spec"]["nodeSelector"][kHostnameLabel], "node-0");
  EXPECT_EQ(released["metadata"]["labels"][kReplicaLabel], "0");
  const Json record =
      Json::parse(released["metadata"]["annotations"][kAdmissionAnnotation].get<std::string>());
  EXPECT_EQ(record["placement"][0]["devices"].size(), 2u);
  EXPECT_EQ(record["admittedQueue"], "train");
  const EventNote* admitted = FindEvent(first, "notebook", "Admitted");
  ASSERT_NE(admitted, nullptr);
  EXPECT_EQ(admitted->kind, Kind::kPod);
  EXPECT_EQ(WrittenReason(first, "notebook"), "Admitted");

  const Plan second = PlanCycle(With(Applied(pods, first)).view(), {});
  EXPECT_TRUE(second.pod_releases.empty());
  EXPECT_TRUE(second.pod_deletes.empty());
  EXPECT_EQ(WrittenReason(second, "notebook"), "");  // Unchanged: not written again.
  EXPECT_EQ(FindEvent(second, "notebook", "Admitted"), nullptr);
  ASSERT_EQ(second.decisions.admissions.size(), 0u);
  bool counted = false;
  for (const auto& share : second.decisions.shares)
    if (share.project == "susan") counted = share.allocated == 2000;
  EXPECT_TRUE(counted) << "the held pod counts against Susan's quota";
}

// Whether pod `pod`'s admission record shows it over its project's quota.
bool RecordedOverQuota(const Json& pod) {
  const Json& annotations = pod["metadata"]["annotations"];
  return Json::parse(annotations[kAdmissionAnnotation].get<std::string>())
      .value("overQuota", false);
}

// When a held pod's standing changes (here: a pod within the quota ends, and an
// over-quota one takes its place), its record and condition follow, once.
TEST(PodGroups, AHeldPodsStandingIsRecordedOnItWhenItChanges) {
  std::vector<Json> pods;
  for (int i = 0; i < 4; ++i) pods.push_back(AskingPod("susan", "s" + std::to_string(i), 2));
  pods = Applied(pods, PlanCycle(With(pods).view(), {}));
  int over = 0;
  for (const Json& pod : pods) over += RecordedOverQuota(pod) ? 1 : 0;
  ASSERT_EQ(over, 2) << "8 GPUs held against a quota of 4";
  for (Json& pod : pods)
    if (!RecordedOverQuota(pod)) {
      pod["status"]["phase"] = "Succeeded";
      break;
    }
  const Plan changed = PlanCycle(With(pods).view(), {});
  pods = Applied(pods, changed);
  over = 0;
  for (const Json& pod : pods)
    if (pod["status"]["phase"] == "Running") over += RecordedOverQuota(pod) ? 1 : 0;
  EXPECT_EQ(over, 1) << "6 GPUs held against a quota of 4";
  const Plan settled = PlanCycle(With(pods).view(), {});
  EXPECT_TRUE(settled.pod_patches.empty());
  for (const auto& event : settled.events) ADD_FAILURE() << event.reason << ": " << event.message;
}

TEST(PodGroups, AGangWaitsWholeUntilAllItsPodsExistThenStartsWhole) {
  std::vector<Json> pods = {InGroup(AskingPod("susan", "ddp-0", 2), "ddp", 3),
                            InGroup(AskingPod("susan", "ddp-1", 2), "ddp", 3)};
  const Plan partial = PlanCycle(With(pods).view(), {});
  EXPECT_TRUE(partial.pod_releases.empty());
  EXPECT_EQ(WrittenReason(partial, "ddp-0"), "WaitingForPods");
  EXPECT_EQ(WrittenReason(partial, "ddp-1"), "WaitingForPods");
  const EventNote* waiting = FindEvent(partial, "ddp-0", "WaitingForPods");
  ASSERT_NE(waiting, nullptr);
  EXPECT_NE(waiting->message.find("2 of the 3 pods of group ddp"), std::string::npos);

  pods = Applied(pods, partial);
  pods.push_back(InGroup(AskingPod("susan", "ddp-2", 2), "ddp", 3));
  const Plan whole = PlanCycle(With(pods).view(), {});
  ASSERT_EQ(whole.pod_releases.size(), 3u);
  std::set<std::string> slots;
  for (const Json& pod : Applied(pods, whole))
    slots.insert(pod["metadata"]["labels"][kReplicaLabel]);
  EXPECT_EQ(slots, (std::set<std::string>{"0", "1", "2"}));
}

// An Indexed Job of 4 pods of 2 GPUs (completions = parallelism): one gang,
// sized by the Job itself, with no group label on its template.
// The controller killed between a gang's releases: one pod released with its
// record, the others still gated. The next controller reads the record from the
// released pod and releases the rest to their recorded slots; nothing is
// admitted twice, and no slot moves.
TEST(PodGroups, AGangHalfReleasedWhenTheControllerDiedIsReleasedWholeByTheNext) {
  const std::vector<Json> pods = {InGroup(AskingPod("susan", "ddp-0", 2), "ddp", 3),
                                  InGroup(AskingPod("susan", "ddp-1", 2), "ddp", 3),
                                  InGroup(AskingPod("susan", "ddp-2", 2), "ddp", 3)};
  Plan first = PlanCycle(With(pods).view(), {});
  ASSERT_EQ(first.pod_releases.size(), 3u);
  first.pod_releases.resize(1);  // Only the first write reached the server.
  first.pod_patches.clear();
  const std::vector<Json> half = Applied(pods, first);
  const Plan next = PlanCycle(With(half).view(), {});
  ASSERT_EQ(next.pod_releases.size(), 2u);
  for (const auto& event : next.events) EXPECT_NE(event.reason, "Admitted") << event.message;
  const std::vector<Json> whole = Applied(half, next);
  std::set<std::string> slots, records;
  for (const Json& pod : whole) {
    slots.insert(pod["metadata"]["labels"][kReplicaLabel]);
    records.insert(pod["metadata"]["annotations"][kAdmissionAnnotation]);
  }
  EXPECT_EQ(slots, (std::set<std::string>{"0", "1", "2"}));
  EXPECT_EQ(records.size(), 1u) << "one admission, recorded alike on every pod";
  EXPECT_TRUE(PlanCycle(With(whole).view(), {}).pod_releases.empty());
}

TEST(PodGroups, ABatchJobsPodsAreOneGangOfItsParallelism) {
  std::vector<Json> pods;
  for (int i = 0; i < 4; ++i)
    pods.push_back(OfBatchJob(AskingPod("susan", "ddp-" + std::to_string(i), 2), "ddp"));
  const std::vector<Json> three(pods.begin(), pods.begin() + 3);
  const Plan partial =
      PlanCycle(With(three, GroupCluster().BatchJob("susan", "uid-ddp", 4, 4)).view(), {});
  EXPECT_TRUE(partial.pod_releases.empty());
  const EventNote* waiting = FindEvent(partial, "ddp-0", "WaitingForPods");
  ASSERT_NE(waiting, nullptr);
  EXPECT_NE(waiting->message.find("3 of the 4 pods of group ddp"), std::string::npos)
      << waiting->message;
  const Plan whole =
      PlanCycle(With(pods, GroupCluster().BatchJob("susan", "uid-ddp", 4, 4)).view(), {});
  EXPECT_EQ(whole.pod_releases.size(), 4u);
  // Its Job not seen yet: the gang's size is unknown, so it waits.
  EXPECT_TRUE(PlanCycle(With(pods).view(), {}).pod_releases.empty());
  // Fewer completions than parallelism: the gang is the completions.
  const std::vector<Json> two(pods.begin(), pods.begin() + 2);
  EXPECT_EQ(PlanCycle(With(two, GroupCluster().BatchJob("susan", "uid-ddp", 4, 2)).view(), {})
                .pod_releases.size(),
            2u);
}

// A pod the Job made again after a preemption waits from its Job's creation,
// not its own: it keeps the workload's place ahead of younger workloads.
TEST(PodGroups, AJobsReplacementPodKeepsItsJobsPlaceInTheQueue) {
  Json replacement = OfBatchJob(AskingPod("susan", "again", 8), "early");
  replacement["metadata"]["creationTimestamp"] = FormatTime(kNow - 5);
  const std::vector<Json> pods = {AskingPod("susan", "younger", 8), replacement};
  const Plan plan = PlanCycle(
      With(pods, GroupCluster().BatchJob("susan", "uid-early", 1, 1, kNow - 3600)).view(), {});
  ASSERT_EQ(plan.pod_releases.size(), 1u);
  EXPECT_EQ(plan.pod_releases[0].name, "again");
  // A Job whose creation is unknown: the pod waits from its own, behind the older pod.
  const Plan undated =
      PlanCycle(With(pods, GroupCluster().BatchJob("susan", "uid-early", 1, 1)).view(), {});
  ASSERT_EQ(undated.pod_releases.size(), 1u);
  EXPECT_EQ(undated.pod_releases[0].name, "younger");
}

// More pods than a group label's size is refused; a Job's pods past its gang
// (finished ones, replacements) are not.
TEST(PodGroups, ABatchJobsFinishedPodsDoNotOverfillItsGang) {
  std::vector<Json> pods;
  for (int i = 0; i < 3; ++i)
    pods.push_back(OfBatchJob(AskingPod("susan", "w-" + std::to_string(i), 2), "w"));
  pods[0]["status"]["phase"] = "Succeeded";
  const Plan plan =
      PlanCycle(With(pods, GroupCluster().BatchJob("susan", "uid-w", 2, 3)).view(), {});
  for (const auto& event : plan.events) EXPECT_NE(event.reason, "InvalidSpec") << event.message;
}

TEST(PodGroups, OverQuotaPodsAreEvictedWhenTheOwnerOfTheQuotaAsks) {
  std::vector<Json> susan;
  for (int i = 0; i < 4; ++i) susan.push_back(AskingPod("susan", "s" + std::to_string(i), 2));
  const Plan first = PlanCycle(With(susan).view(), {});
  ASSERT_EQ(first.pod_releases.size(), 4u) << "idle GPUs are lent to Susan";
  std::vector<Json> pods = Applied(susan, first);
  pods.push_back(AskingPod("joe", "joe-0", 4));
  const Plan reclaim = PlanCycle(With(pods).view(), {});
  int evicted = 0;
  for (int i = 0; i < 4; ++i) evicted += Evicted(reclaim, "s" + std::to_string(i)) ? 1 : 0;
  EXPECT_EQ(evicted, 2) << "two of Susan's 2-GPU pods are over her quota of 4";
  EXPECT_TRUE(reclaim.pod_releases.empty()) << "Joe's pod waits for the victims to stop";
}

TEST(PodGroups, WhatCouldNeverRunWaitsWithTheReasonOnThePod) {
  Json unknown_queue = AskingPod("susan", "wrong-queue", 1);
  unknown_queue["metadata"]["labels"][kQueueLabel] = "nope";
  Json no_project = AskingPod("nobody", "orphan", 1);
  Json bad_size = AskingPod("susan", "bad-size", 1);
  bad_size["metadata"]["labels"][kPodGroupLabel] = "g";
  bad_size["metadata"]["labels"][kPodGroupSizeLabel] = "many";
  Json no_gpu = AskingPod("susan", "no-gpu", 0);
  Json bad_fraction = AskingPod("susan", "bad-fraction", 0);
  bad_fraction["metadata"]["annotations"][kFractionAnnotation] = "1.5";
  const Plan plan =
      PlanCycle(With({unknown_queue, no_project, bad_size, no_gpu, bad_fraction}).view(), {});
  EXPECT_TRUE(plan.pod_releases.empty());
  EXPECT_EQ(WrittenReason(plan, "wrong-queue"), "UnknownQueue");
  EXPECT_EQ(WrittenReason(plan, "orphan"), "NoProject");
  EXPECT_EQ(WrittenReason(plan, "bad-size"), "InvalidSpec");
  EXPECT_EQ(WrittenReason(plan, "no-gpu"), "InvalidSpec");
  EXPECT_EQ(WrittenReason(plan, "bad-fraction"), "InvalidSpec");
  const EventNote* size = FindEvent(plan, "bad-size", "InvalidSpec");
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(size->type, "Warning");
  EXPECT_NE(size->message.find("metadata.labels[gpupool.dev/pod-group-size]"), std::string::npos)
      << size->message;
  const EventNote* fraction = FindEvent(plan, "bad-fraction", "InvalidSpec");
  ASSERT_NE(fraction, nullptr);
  EXPECT_NE(fraction->message.find("gpupool.dev/gpu-fraction"), std::string::npos);
}

TEST(PodGroups, AGroupWhosePodsDisagreeOrOverfillItIsRefusedNamingTheField) {
  Json other_queue = InGroup(AskingPod("susan", "mixed-1", 1), "mixed", 2);
  other_queue["metadata"]["labels"][kQueueLabel] = "build";
  Json split_fraction = InGroup(AskingPod("susan", "split-0", 0), "split", 2);
  split_fraction["metadata"]["annotations"][kFractionAnnotation] = "0.5";
  Json both = AskingPod("susan", "both", 1);
  both["metadata"]["annotations"][kFractionAnnotation] = "0.5";
  const Plan plan =
      PlanCycle(With({InGroup(AskingPod("susan", "mixed-0", 1), "mixed", 2), other_queue,
                      InGroup(AskingPod("susan", "full-0", 1), "full", 1),
                      InGroup(AskingPod("susan", "full-1", 1), "full", 1), split_fraction, both})
                    .view(),
                {});
  EXPECT_TRUE(plan.pod_releases.empty());
  const std::map<std::string, std::string> expected = {
      {"mixed-0", "metadata.labels[gpupool.dev/queue]: the pods of group mixed disagree"},
      {"full-0", "2 pods name group full of 1"},
      {"split-0", "fractions are for one pod"},
      {"both", "not both"}};
  for (const auto& [pod, words] : expected) {
    const EventNote* refused = FindEvent(plan, pod, "InvalidSpec");
    ASSERT_NE(refused, nullptr) << pod;
    EXPECT_NE(refused->message.find(words), std::string::npos) << refused->message;
  }
}

// Half a GPU: released once the reservation pod of its device slot holds a
// device, which the pod is told, with its share.
TEST(PodGroups, AFractionIsReleasedOnceItsDeviceIsHeld) {
  Json half = AskingPod("susan", "half", 0);
  half["metadata"]["annotations"][kFractionAnnotation] = "0.5";
  const Plan first = PlanCycle(With({half}).view(), {});
  ASSERT_EQ(first.reservation_pods.size(), 1u);
  EXPECT_TRUE(first.pod_releases.empty());
  EXPECT_EQ(WrittenReason(first, "half"), "AwaitingRoom");
  const std::string reservation = first.reservation_pods[0]["metadata"]["name"];
  const int slot = std::stoi(reservation.substr(reservation.rfind('-') + 1));
  auto held = With({Applied({half}, first)[0]});
  held.ReservationPod("default", "node-0", slot, "GPU-0f3a");
  const Plan second = PlanCycle(held.view(), {});
  ASSERT_EQ(second.pod_releases.size(), 1u);
  const Json released = Applied({half}, second)[0];
  EXPECT_EQ(released["metadata"]["annotations"][kDeviceAnnotation], "GPU-0f3a");
  EXPECT_EQ(released["metadata"]["annotations"][kFractionAnnotation], "0.5");
}

// A Deployment's replica (its owner a ReplicaSet) is an Inference workload:
// it runs only within its project's quota, however idle the pool.
TEST(PodGroups, ADeploymentsReplicaRunsOnlyWithinQuota) {
  Json replica = AskingPod("susan", "serve-abc", 6);
  replica["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"},
                                             {"kind", "ReplicaSet"},
                                             {"name", "serve-7d"},
                                             {"uid", "rs-uid"},
                                             {"controller", true}}};
  const Plan plan = PlanCycle(With({replica}).view(), {});
  EXPECT_TRUE(plan.pod_releases.empty()) << "6 GPUs is above Susan's quota of 4";
  const std::string reason = WrittenReason(plan, "serve-abc");
  EXPECT_FALSE(reason.empty());
  const EventNote* on_owner = FindEvent(plan, "serve-7d", reason);
  ASSERT_NE(on_owner, nullptr) << "told on the pod's owner too";
  EXPECT_EQ(on_owner->object_kind, "ReplicaSet");
  EXPECT_EQ(on_owner->uid, "rs-uid");
  replica["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = 4;
  EXPECT_EQ(PlanCycle(With({replica}).view(), {}).pod_releases.size(), 1u);
}

// A pod of `ns` that asks for `gpus` GPUs, runs on node-0 without the gate,
// made at `created`, and carries `record` as its admission (slot 0).
Json RunningWithRecord(const std::string& ns, const std::string& name, int gpus,
                       EpochSeconds created, const Json& record) {
  Json pod = AskingPod(ns, name, gpus);
  pod["metadata"]["creationTimestamp"] = FormatTime(created);
  pod["spec"].erase("schedulingGates");
  pod["spec"]["nodeName"] = "node-0";
  pod["status"]["phase"] = "Running";
  pod["metadata"]["labels"][kReplicaLabel] = "0";
  pod["metadata"]["annotations"][kAdmissionAnnotation] = record.dump();
  return pod;
}

Json Record(EpochSeconds admitted, const std::string& node, std::vector<int> devices) {
  return {{"admittedQueue", "train"},
          {"admittedTime", FormatTime(admitted)},
          {"placement", {{{"replica", 0}, {"node", node}, {"devices", devices}}}}};
}

// A pod that asks but carries no gate runs without gpupool: it is flagged, and
// its GPUs count as use gpupool does not manage, never as a slot it granted,
// whatever admission record its owner wrote on it (one naming another node,
// one dated before the pod was made).
TEST(PodGroups, APodWithoutTheGateOrWithAForgedRecordIsFlaggedAndCountedAsUnmanaged) {
  const Json ungated = RunningWithRecord("susan", "escapee", 4, kNow - 30,
                                         Record(kNow - 10, "node-9", {0, 1, 2, 3}));
  const Json backdated = RunningWithRecord("susan", "backdated", 4, kNow - 30,
                                           Record(kNow - 40, "node-0", {4, 5, 6, 7}));
  const Plan plan = PlanCycle(With({ungated, backdated, AskingPod("joe", "joe-0", 4)}).view(), {});
  EXPECT_EQ(WrittenReason(plan, "backdated"), "NotGated") << "admitted before it was made";
  EXPECT_EQ(WrittenReason(plan, "escapee"), "NotGated");
  const EventNote* flagged = FindEvent(plan, "escapee", "NotGated");
  ASSERT_NE(flagged, nullptr);
  EXPECT_EQ(flagged->type, "Warning");
  EXPECT_TRUE(plan.pod_releases.empty()) << "8 GPUs used, none by a slot gpupool granted";
  EXPECT_TRUE(plan.pod_deletes.empty()) << "no admission of Susan's to reclaim";
  for (const auto& share : plan.decisions.shares)
    if (share.project == "susan") {
      EXPECT_EQ(share.allocated, 0);
    }
}

// A pod's owner can write any record on it, even one gpupool would believe
// (released, on its slot's node, admitted after it was made) that claims the
// devices of a TrainingJob admitted later: the TrainingJob keeps them, and
// the pod is the one sent back to its queue.
TEST(PodGroups, ARecordOnAPodNeverTakesATrainingJobsDevices) {
  auto b = GroupCluster();
  b.Job("joe", "bert", 1, 4,
        testing::HoldingStatus("Running", "node-0", {0, 1, 2, 3}, kNow - 50, "joe"));
  b.JobPod("joe", "bert", 0, "node-0", "Running", false, 4);
  const Json forged = RunningWithRecord("susan", "forged", 4, kNow - 100,
                                        Record(kNow - 90, "node-0", {0, 1, 2, 3}));
  const Plan plan = PlanCycle(With({forged}, b).view(), {});
  bool stopped = false;
  for (const auto& remove : plan.pod_deletes) stopped = stopped || remove.name == "forged";
  EXPECT_TRUE(stopped);
  for (const auto* writes : plan.StatusWrites()) {
    for (const auto& write : *writes) {
      if (write.name == "bert") {
        EXPECT_EQ(write.patch["status"].value("phase", ""), "Running");
      }
    }
  }
  EXPECT_EQ(FindEvent(plan, "bert", "PlacementConflict"), nullptr);
  EXPECT_NE(FindEvent(plan, "forged", "PlacementConflict"), nullptr);
}

TEST(PodGroups, APodWithoutTheQueueLabelIsNeverTouched) {
  Json plain = AskingPod("susan", "plain", 1);
  plain["metadata"]["labels"].erase(kQueueLabel);
  const Plan plan = PlanCycle(With({plain}).view(), {});
  EXPECT_TRUE(plan.pod_releases.empty());
  EXPECT_TRUE(plan.pod_patches.empty());
  EXPECT_TRUE(plan.pod_deletes.empty());
  EXPECT_TRUE(plan.events.empty());
}

}  // namespace
}  // namespace gpupool::op

namespace gpupool::op {
namespace {

// A pod template asking for `gpus` GPUs (none: a launcher's or a driver's).
Json TemplateAsking(int gpus) {
  Json container = {{"name", "main"}, {"image", "trainer"}};
  if (gpus > 0) container["resources"] = {{"limits", {{"nvidia.com/gpu", gpus}}}};
  return {{"spec", {{"containers", {container}}}}};
}

Json OwnerMetadata(const std::string& name, const std::string& ns = "susan") {
  return {{"name", name},
          {"namespace", ns},
          {"uid", "uid-" + name},
          {"creationTimestamp", FormatTime(kNow - 60)}};
}

// A PyTorchJob of a master and `workers` workers, each asking for 2 GPUs.
Json PyTorchJobObject(const std::string& name, int workers) {
  const Json specs = {{"Master", {{"replicas", 1}, {"template", TemplateAsking(2)}}},
                      {"Worker", {{"replicas", workers}, {"template", TemplateAsking(2)}}}};
  return {{"metadata", OwnerMetadata(name)}, {"spec", {{"pytorchReplicaSpecs", specs}}}};
}

// The pods its training operator makes: "NAME-master-0", "NAME-worker-I".
std::vector<Json> PyTorchJobPods(const std::string& name, int workers) {
  std::vector<Json> pods = {
      OwnedBy(AskingPod("susan", name + "-master-0", 2), "kubeflow.org/v1", "PyTorchJob", name)};
  for (int i = 0; i < workers; ++i)
    pods.push_back(OwnedBy(AskingPod("susan", name + "-worker-" + std::to_string(i), 2),
                           "kubeflow.org/v1", "PyTorchJob", name));
  return pods;
}

TEST(PodGroups, APyTorchJobsPodsAreOneGangOfItsReplicasToldOnThePyTorchJob) {
  const std::vector<Json> pods = PyTorchJobPods("bert", 3);
  const ViewBuilder owned = GroupCluster().Owner("PyTorchJob", PyTorchJobObject("bert", 3));
  const Plan partial =
      PlanCycle(With(std::vector<Json>(pods.begin(), pods.begin() + 3), owned).view(), {});
  EXPECT_TRUE(partial.pod_releases.empty());
  const EventNote* waiting = FindEvent(partial, "bert", "WaitingForPods");
  ASSERT_NE(waiting, nullptr) << "told on the PyTorchJob itself";
  EXPECT_EQ(waiting->object_kind, "PyTorchJob");
  EXPECT_EQ(waiting->api_version, "kubeflow.org/v1");
  EXPECT_EQ(waiting->uid, "uid-bert");
  EXPECT_NE(waiting->message.find("3 of the 4 pods of group bert"), std::string::npos)
      << waiting->message;
  EXPECT_EQ(PlanCycle(With(pods, owned).view(), {}).pod_releases.size(), 4u);
  // A pod of Joe's naming Susan's PyTorchJob as its owner borrows neither its
  // size nor its place in the queue: an owner is of the pod's own namespace.
  const Json borrower =
      OwnedBy(AskingPod("joe", "borrower", 2), "kubeflow.org/v1", "PyTorchJob", "bert");
  const Plan borrowing = PlanCycle(With({borrower}, owned).view(), {});
  EXPECT_TRUE(borrowing.pod_releases.empty());
  const EventNote* refused = FindEvent(borrowing, "borrower", "WaitingForPods");
  ASSERT_NE(refused, nullptr);
  EXPECT_NE(refused->message.find("not seen yet"), std::string::npos) << refused->message;
  // The PyTorchJob not seen yet (or its kind not served): its gang waits, saying so.
  const Plan unseen = PlanCycle(With(pods).view(), {});
  EXPECT_TRUE(unseen.pod_releases.empty());
  const EventNote* told = FindEvent(unseen, "bert", "WaitingForPods");
  ASSERT_NE(told, nullptr);
  EXPECT_NE(told->message.find("its owner PyTorchJob bert is not seen yet"), std::string::npos)
      << told->message;
}

// A JobSet's pods are its Jobs' pods: one gang of the replicated Jobs that
// ask for GPUs (2 workers' Jobs × 2 pods). Its driver asks for none: it rides
// along, released once the gang is, and stopped with it.
TEST(PodGroups, AJobSetsPodsAreOneGangAndItsDriverRidesAlong) {
  const Json workers = {
      {"name", "workers"},
      {"replicas", 2},
      {"template",
       {{"spec", {{"parallelism", 2}, {"completions", 2}, {"template", TemplateAsking(2)}}}}}};
  const Json driver = {{"name", "driver"},
                       {"template", {{"spec", {{"template", TemplateAsking(0)}}}}}};
  const Json jobset = {{"metadata", OwnerMetadata("llm")},
                       {"spec", {{"replicatedJobs", {workers, driver}}}}};
  ViewBuilder cluster = GroupCluster().Owner("JobSet", jobset);
  std::vector<Json> pods = {OfBatchJob(AskingPod("susan", "llm-driver-0-0", 0), "llm-driver-0")};
  for (const std::string job : {"llm-workers-0", "llm-workers-1"}) {
    Json object = OwnedBy({{"metadata", OwnerMetadata(job)}, {"spec", {{"parallelism", 2}}}},
                          "jobset.x-k8s.io/v1alpha2", "JobSet", "llm");
    cluster.Owner("Job", object);
    for (int i = 0; i < 2; ++i)
      pods.push_back(OfBatchJob(AskingPod("susan", job + "-" + std::to_string(i), 2), job));
  }
  cluster.Owner("Job", OwnedBy({{"metadata", OwnerMetadata("llm-driver-0")}},
                               "jobset.x-k8s.io/v1alpha2", "JobSet", "llm"));
  const Plan plan = PlanCycle(With(pods, cluster).view(), {});
  ASSERT_EQ(plan.pod_releases.size(), 5u) << "4 workers pinned to their slots, and the driver";
  for (const auto& release : plan.pod_releases) {
    const bool pinned = release.patch.dump().find(kHostnameLabel) != std::string::npos;
    EXPECT_EQ(pinned, release.name != "llm-driver-0-0") << release.patch.dump();
  }
  EXPECT_NE(FindEvent(plan, "llm", "Admitted"), nullptr) << "told on the JobSet";
  // Without its driver's Job seen, the driver is still the JobSet's: its Job names it.
  const std::vector<Json> workers_only(pods.begin() + 1, pods.end());
  EXPECT_EQ(PlanCycle(With(workers_only, cluster).view(), {}).pod_releases.size(), 4u);
}

// An MPIJob's launcher (a Job's pod, asking for no GPU) waits with its
// workers and goes with them; evicted, they all stop.
TEST(PodGroups, AnMpiJobsLauncherWaitsAndStopsWithItsWorkers) {
  const Json specs = {{"Launcher", {{"replicas", 1}, {"template", TemplateAsking(0)}}},
                      {"Worker", {{"replicas", 2}, {"template", TemplateAsking(4)}}}};
  ViewBuilder cluster = GroupCluster()
                            .Project("ann", "ann", 0)
                            .Owner("MPIJob", {{"metadata", OwnerMetadata("hvd", "ann")},
                                              {"spec", {{"mpiReplicaSpecs", specs}}}});
  cluster.Owner("Job", OwnedBy({{"metadata", OwnerMetadata("hvd-launcher", "ann")}},
                               "kubeflow.org/v2beta1", "MPIJob", "hvd"));
  const auto worker = [](int i) {
    return OwnedBy(AskingPod("ann", "hvd-worker-" + std::to_string(i), 4), "kubeflow.org/v2beta1",
                   "MPIJob", "hvd");
  };
  std::vector<Json> pods = {OfBatchJob(AskingPod("ann", "hvd-launcher-x", 0), "hvd-launcher"),
                            worker(0)};
  EXPECT_TRUE(PlanCycle(With(pods, cluster).view(), {}).pod_releases.empty())
      << "the launcher waits for the gang";
  pods.push_back(worker(1));
  const Plan whole = PlanCycle(With(pods, cluster).view(), {});
  ASSERT_EQ(whole.pod_releases.size(), 3u);
  // Ann has no quota: the gang's 8 GPUs are lent, and Joe takes his 4 back.
  std::vector<Json> running = Applied(pods, whole);
  running.push_back(AskingPod("joe", "joe-0", 4));
  const Plan reclaim = PlanCycle(With(running, cluster).view(), {});
  EXPECT_TRUE(Evicted(reclaim, "hvd-worker-0") && Evicted(reclaim, "hvd-worker-1"));
  EXPECT_TRUE(Evicted(reclaim, "hvd-launcher-x"));
}

// Owners as hostile or careless users write them: the gang is never less than
// one pod, counts are bounded, and fields of the wrong type are ignored.
TEST(PodGroups, AnOwnersOddSpecGivesAGangOfAtLeastOnePod) {
  const auto gang = [](const std::string& kind, const Json& spec) {
    for (const OwnerKind& known : OwnerKinds())
      if (known.kind == kind) return DecodeOwnerObject({{"spec", spec}}, known).gang_size;
    return -1;
  };
  EXPECT_EQ(gang("Job", {{"parallelism", -3}}), 1);
  EXPECT_EQ(gang("Job", {{"parallelism", "many"}, {"completions", 0}}), 1);
  EXPECT_EQ(gang("Job", Json::array()), 1);
  EXPECT_EQ(gang("PyTorchJob", {{"pytorchReplicaSpecs", "x"}}), 1);
  EXPECT_EQ(gang("PyTorchJob",
                 {{"pytorchReplicaSpecs",
                   {{"Worker", {{"replicas", 1LL << 40}, {"template", TemplateAsking(1)}}}}}}),
            1 << 20);
  EXPECT_EQ(gang("JobSet",
                 {{"replicatedJobs",
                   {{{"replicas", 1 << 20},
                     {"template",
                      {{"spec", {{"parallelism", 1 << 20}, {"template", TemplateAsking(1)}}}}}}}}}),
            1 << 20);
  EXPECT_EQ(gang("MPIJob", {{"mpiReplicaSpecs", {{"Worker", {{"template", 7}}}}}}), 1);
  const OwnerObject bare = DecodeOwnerObject(Json::array(), OwnerKinds().front());
  EXPECT_EQ(bare.gang_size, 1);
  EXPECT_EQ(bare.uid, "");
}

}  // namespace
}  // namespace gpupool::op
