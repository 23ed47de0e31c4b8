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
