// Placement rules, as tables: best-fit whole GPUs, gangs on the fewest nodes,
// topology domains, fractions on shared devices first and never mixed with whole
// GPUs, GPU models and selectors, unmanaged use.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster_builder.h"

namespace gpupool::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::SizeIs;

RunningJob Busy(const std::string& name, MilliGpu gpus, const std::string& node,
                std::vector<int> devices) {
  RunningJob job;
  job.name = name;
  job.queue = "train";
  job.project = "other";
  job.shape.gpu_milli = gpus;
  job.workload_class = WorkloadClass::kInference;
  job.replicas = {{node, std::move(devices)}};
  return job;
}

Snapshot Pool(int nodes, int gpus) {
  ClusterBuilder cluster;
  cluster.Nodes(nodes, gpus).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("p", "train", 64 * kGpu).AddProject("other", "train", 64 * kGpu);
  return cluster.Build();
}

std::vector<std::string> NodesOf(const Decisions& d, const std::string& job) {
  std::vector<std::string> nodes;
  for (const ReplicaPlacement& r : FindAdmission(d, job)->replicas) nodes.push_back(r.node);
  return nodes;
}

TEST(Placement, WholeGpusBestFitKeepsLargeHoles) {
  for (Packing packing : {Packing::kBestFit, Packing::kFragmentationAware}) {
    Snapshot s = Pool(3, 8);
    // node-0: 8 free, node-1: 2 free, node-2: 4 free.
    s.running = {Busy("b1", 6 * kGpu, "node-1", {0, 1, 2, 3, 4, 5}),
                 Busy("b2", 4 * kGpu, "node-2", {0, 1, 2, 3})};
    s.pending = {Job("two", "train", "p", 2 * kGpu)};
    Options options;
    options.packing = packing;
    Decisions d = Decide(s, options);
    EXPECT_THAT(NodesOf(d, "two"), ElementsAre("node-1"));
    EXPECT_THAT(FindAdmission(d, "two")->replicas[0].devices, ElementsAre(6, 7));
  }
}

TEST(Placement, GangOnTheFewestNodes) {
  Snapshot s = Pool(4, 8);
  // node-0 has 2 free, node-1 4, node-2 8, node-3 8: a 4x4-GPU gang takes node-2 and node-3.
  s.running = {Busy("b1", 6 * kGpu, "node-0", {0, 1, 2, 3, 4, 5}),
               Busy("b2", 4 * kGpu, "node-1", {0, 1, 2, 3})};
  s.pending = {Job("gang", "train", "p", 4 * kGpu, 4)};
  Decisions d = Decide(s);
  EXPECT_THAT(NodesOf(d, "gang"), ElementsAre("node-2", "node-2", "node-3", "node-3"));
}

TEST(Placement, TopologyPreferredFallsBackRequiredWaits) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 8, "a", {{"rack", "a"}}).Nodes(1, 8, "b", {{"rack", "b"}});
  cluster.AddQueue("train", Sharing::kGuaranteed).AddProject("p", "train", 64 * kGpu);
  Snapshot s = cluster.Build();
  PendingJob preferred = Job("preferred", "train", "p", 8 * kGpu, 2);
  preferred.topology = {TopologyMode::kPreferred, "rack"};
  s.pending = {preferred};
  Decisions d = Decide(s);
  EXPECT_THAT(NodesOf(d, "preferred"), ElementsAre("a-0", "b-0"));

  s.pending[0].topology.mode = TopologyMode::kRequired;
  Decisions required = Decide(s);
  EXPECT_EQ(FindWaiting(required, "preferred")->code, WaitCode::kTopology);
}

TEST(Placement, FractionsGoToSharedDevicesFirstAndNeverShareWholeOnes) {
  Snapshot s = Pool(2, 2);
  RunningJob half = Busy("half", 500, "node-1", {1});
  s.running = {half, Busy("whole", kGpu, "node-0", {0})};
  s.pending = {Job("quarter", "train", "p", 250), Job("one", "train", "p", kGpu)};
  Decisions d = Decide(s);
  // The quarter joins the half-used device; the whole GPU takes an untouched device.
  EXPECT_EQ(FindAdmission(d, "quarter")->replicas[0].node, "node-1");
  EXPECT_THAT(FindAdmission(d, "quarter")->replicas[0].devices, ElementsAre(1));
  const ReplicaPlacement& one = FindAdmission(d, "one")->replicas[0];
  EXPECT_TRUE((one.node == "node-0" && one.devices == std::vector<int>{1}) ||
              (one.node == "node-1" && one.devices == std::vector<int>{0}));

  // With only partly used devices left, a whole-GPU job waits rather than share.
  s.running = {Busy("h0", 500, "node-0", {0}), Busy("h1", 500, "node-0", {1}),
               Busy("h2", 250, "node-1", {0}), Busy("h3", 250, "node-1", {1})};
  s.pending = {Job("one", "train", "p", kGpu)};
  Decisions blocked = Decide(s);
  EXPECT_EQ(FindWaiting(blocked, "one")->code, WaitCode::kCapacity);
}

TEST(Placement, UnmanagedUseCountsAndKeepsDevicesFromWholeJobs) {
  Snapshot s = Pool(1, 2);
  s.nodes[0].unmanaged_milli = {300, 0};
  s.pending = {Job("one", "train", "p", kGpu), Job("two", "train", "p", kGpu),
               Job("small", "train", "p", 700)};
  Decisions d = Decide(s);
  EXPECT_THAT(FindAdmission(d, "one")->replicas[0].devices, ElementsAre(1));
  EXPECT_NE(FindWaiting(d, "two"), nullptr);
  EXPECT_THAT(FindAdmission(d, "small")->replicas[0].devices, ElementsAre(0));
}

TEST(Placement, GpuModelsAndSelectors) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 4, "t4", {{"zone", "x"}}, "T4").Nodes(1, 4, "a100", {{"zone", "y"}}, "A100");
  cluster.AddQueue("train", Sharing::kGuaranteed).AddProject("p", "train", 64 * kGpu);
  Snapshot s = cluster.Build();
  PendingJob model = Job("wants-a100", "train", "p", kGpu);
  model.gpu_models = {"A100"};
  PendingJob zone = Job("wants-x", "train", "p", kGpu);
  zone.node_selector = {{"zone", "x"}};
  PendingJob none = Job("wants-h100", "train", "p", kGpu);
  none.gpu_models = {"H100"};
  s.pending = {model, zone, none};
  Decisions d = Decide(s);
  EXPECT_THAT(NodesOf(d, "wants-a100"), ElementsAre("a100-0"));
  EXPECT_THAT(NodesOf(d, "wants-x"), ElementsAre("t4-0"));
  EXPECT_EQ(FindWaiting(d, "wants-h100")->code, WaitCode::kNoMatchingNodes);
  EXPECT_EQ(FindWaiting(d, "wants-h100")->message,
            "no schedulable node of queue \"train\" can ever hold one replica of 1 GPU of model "
            "H100");
}

TEST(Placement, CordonedNodesTakeNothingNew) {
  Snapshot s = Pool(2, 1);
  s.nodes[0].schedulable = false;
  s.pending = {Job("a", "train", "p", kGpu), Job("b", "train", "p", kGpu)};
  Decisions d = Decide(s);
  EXPECT_THAT(NodesOf(d, "a"), ElementsAre("node-1"));
  EXPECT_THAT(d.admissions, SizeIs(1));
}

}  // namespace
}  // namespace gpupool::engine::testing
