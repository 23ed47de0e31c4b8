#include "gpupool/operator/pod_view.h"

#include <gtest/gtest.h>

namespace gpupool::op {
namespace {

TEST(PodView, ReadsWhatSchedulingNeedsOfAPod) {
  const auto pod = DecodePodView(nlohmann::json::parse(R"({
    "metadata": {"name": "a-1", "namespace": "ns", "uid": "u1",
                 "deletionTimestamp": "2026-01-01T00:00:00Z",
                 "labels": {"gpupool.dev/job": "a", "gpupool.dev/replica": "1"},
                 "ownerReferences": [{"uid": "other"}, {"uid": "job-uid", "controller": true}]},
    "spec": {"nodeSelector": {"kubernetes.io/hostname": "node-3"},
             "schedulingGates": [{"name": "x"}, {"name": "gpupool.dev/admission"}],
             "containers": [{"resources": {"limits": {"nvidia.com/gpu": "2"}}},
                            {"resources": {"requests": {"nvidia.com/gpu": 1},
                                           "limits": {"nvidia.com/gpu": 1}}}],
             "initContainers": [{"resources": {"limits": {"nvidia.com/gpu": "4"}}}]},
    "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})"));
  EXPECT_EQ(pod.job, "a");
  EXPECT_EQ(pod.replica, 1);
  EXPECT_EQ(pod.owner_uid, "job-uid");
  EXPECT_EQ(pod.pinned, "node-3");
  EXPECT_EQ(pod.gate_index, 1);
  EXPECT_EQ(pod.gates, 2);
  EXPECT_EQ(pod.gpu_milli, 4000);  // The init container asks for more than 2 + 1.
  EXPECT_TRUE(pod.terminating);
  EXPECT_TRUE(pod.ready);
  EXPECT_EQ(pod.phase, PodPhase::kRunning);
  EXPECT_EQ(pod.Host(), "");  // Still gated: not on its node yet.
}

TEST(PodView, ReadsWhatAPodOfAnotherOwnerAsksFor) {
  const auto pod = DecodePodView(nlohmann::json::parse(R"({
    "metadata": {"name": "w-0", "namespace": "ns", "uid": "u2",
                 "creationTimestamp": "2026-01-01T00:00:00Z",
                 "labels": {"gpupool.dev/queue": "train", "gpupool.dev/pod-group": "w",
                            "gpupool.dev/pod-group-size": "4",
                            "gpupool.dev/workload-class": "Build"},
                 "annotations": {"gpupool.dev/gpu-fraction": "0.5", "gpupool.dev/admission":
                     "{\"placement\": [{\"replica\": 0, \"node\": \"n1\", \"devices\": [3]}]}"},
                 "ownerReferences": [{"kind": "Job", "uid": "job-uid", "controller": true}]},
    "spec": {"nodeSelector": {"pool": "a100", "zone": 3}},
    "status": {"conditions": [{"type": "gpupool.dev/Admitted", "status": "False",
                               "reason": "WaitingForPods", "message": "2 of 4"}]}})"));
  ASSERT_TRUE(pod.Asks());
  const PodRequest& request = *pod.request;
  EXPECT_EQ(request.queue, "train");
  EXPECT_EQ(request.group, "w");
  EXPECT_EQ(request.group_size, "4");
  EXPECT_EQ(request.workload_class, "Build");
  EXPECT_EQ(request.fraction, "0.5");
  ASSERT_TRUE(request.admission_record.has_value());
  ASSERT_EQ(request.admission_record->placement.size(), 1u);
  EXPECT_EQ(request.admission_record->placement[0].node, "n1");
  EXPECT_EQ(request.owner_kind, "Job");
  EXPECT_EQ(request.created, "2026-01-01T00:00:00Z");
  EXPECT_EQ(request.admission.reason, "WaitingForPods");
  EXPECT_EQ(request.admission.message, "2 of 4");
  EXPECT_EQ(request.node_selector, (std::map<std::string, std::string>{{"pool", "a100"}}));
}

// A TrainingJob's pod and a reservation pod carry the queue label too: they are
// gpupool's own, never pods that ask.
TEST(PodView, OnlyPodsOfOtherOwnersWithTheQueueLabelAsk) {
  for (const char* labels : {R"({})", R"({"gpupool.dev/queue": ""})",
                             R"({"gpupool.dev/queue": "q", "gpupool.dev/job": "j"})",
                             R"({"gpupool.dev/queue": "q", "gpupool.dev/gpu-reservation": "0"})"}) {
    nlohmann::json pod = {{"metadata", {{"name", "p"}, {"labels", nlohmann::json::parse(labels)}}}};
    EXPECT_FALSE(DecodePodView(pod).Asks()) << labels;
  }
}

TEST(PodView, MalformedFieldsReadAsAbsentNeverThrow) {
  const auto pod = DecodePodView(nlohmann::json::parse(R"({
    "metadata": {"name": 7, "labels": {"gpupool.dev/replica": "-3"}, "ownerReferences": "x"},
    "spec": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": "lots"}}}],
             "schedulingGates": {}},
    "status": []})"));
  EXPECT_EQ(pod.name, "");
  EXPECT_EQ(pod.replica, -1);
  EXPECT_EQ(pod.gpu_milli, 0);
  EXPECT_EQ(pod.gate_index, -1);
  EXPECT_FALSE(pod.Managed());
}

}  // namespace
}  // namespace gpupool::op
