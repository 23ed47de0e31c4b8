// The status keeps its word (docs/scheduling.md, "Over quota"): the jobs shown over
// their project's quota are the ones a reclaim stops first. Story 1 exactly, then
// random clusters where one project runs far over its quota and another reclaims.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "cluster_builder.h"

namespace gpupool::engine::testing {
namespace {

using ::testing::IsSubsetOf;
using ::testing::SizeIs;

RunningJob Held(const std::string& name, const std::string& node, std::vector<int> devices,
                Seconds start, int priority = 0) {
  RunningJob job;
  job.name = name;
  job.uid = "uid-" + name;
  job.queue = "train";
  job.project = "susan";
  job.shape.gpu_milli = kGpu * static_cast<MilliGpu>(devices.size());
  job.priority = priority;
  job.start_time = start;
  job.replicas = {{node, std::move(devices)}};
  return job;
}

std::set<std::string> AsSet(const std::vector<std::string>& names) {
  return {names.begin(), names.end()};
}

// The running jobs the engine shows over their project's quota.
std::set<std::string> ShownOver(const Engine& engine) {
  std::set<std::string> names;
  for (const RunningJob& job : engine.ToSnapshot().running)
    if (!job.terminating && job.over_quota.value_or(false)) names.insert(job.name);
  return names;
}

// The jobs a cycle lists as shown over quota (a first cycle lists every such job).
std::vector<std::string> ListedOver(const Decisions& d) {
  std::vector<std::string> names;
  for (const Standing& standing : d.standing)
    if (standing.over_quota) names.push_back(standing.job);
  return names;
}

// Story 1: Susan's 8 one-GPU jobs started in the same second on a quota of 2; Joe
// asks for his 2. The victims are two of the six shown over quota, whatever the
// names, and the status shows the same six again after the reclaim, less the two.
TEST(QuotaStanding, Story1ReclaimStopsTwoOfTheSixShownOverQuota) {
  ClusterBuilder cluster;
  cluster.Nodes(2, 4, "n").AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("susan", "train", 2 * kGpu).AddProject("joe", "train", 2 * kGpu);
  Snapshot s = cluster.Build();
  s.now = 900;
  for (int i = 0; i < 8; ++i)
    s.running.push_back(Held(Named("susan/sweep-", i + 1), Named("n-", i / 4), {i % 4}, 100));
  Engine engine(s);
  engine.Decide();
  const std::set<std::string> shown_over = ShownOver(engine);
  ASSERT_THAT(shown_over, SizeIs(6));
  engine.AddPending(Job("joe/bert-1", "train", "joe", kGpu));
  engine.AddPending(Job("joe/bert-2", "train", "joe", kGpu));
  const Decisions d = engine.Decide();
  EXPECT_THAT(AsSet(Victims(d)), IsSubsetOf(shown_over));
  EXPECT_THAT(Victims(d), SizeIs(2));
  std::set<std::string> still_over = shown_over;
  for (const std::string& victim : Victims(d)) still_over.erase(victim);
  EXPECT_EQ(ShownOver(engine), still_over);
}

// One node of `gpus` devices in queue train, Susan alone with `quota`, at time 1000.
Snapshot SusanAlone(int gpus, MilliGpu quota) {
  ClusterBuilder cluster;
  cluster.Nodes(1, gpus, "n").AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("susan", "train", quota);
  Snapshot s = cluster.Build();
  s.now = 1000;
  return s;
}

// The within-quota job stays within even when it is the one that started last: a
// higher priority keeps it, and so does more work to lose.
TEST(QuotaStanding, ShownWithinAreTheDearestToStop) {
  Snapshot s = SusanAlone(4, 2 * kGpu);
  s.running = {Held("susan/young-important", "n-0", {0}, 900, 1), Held("susan/old", "n-0", {1}, 0),
               Held("susan/mid", "n-0", {2}, 500), Held("susan/young", "n-0", {3}, 900)};
  const Decisions d = Decide(s);
  EXPECT_EQ(ListedOver(d), (std::vector<std::string>{"susan/mid", "susan/young"}));
  ASSERT_NE(FindShare(d, "susan", "train"), nullptr);
  EXPECT_EQ(FindShare(d, "susan", "train")->over_quota, 2 * kGpu);
}

// A job that would take the project past its quota is over it, and so is every job
// cheaper to stop: what is shown within never outweighs the quota, and never hides
// behind a job shown over.
TEST(QuotaStanding, AJobStraddlingTheQuotaIsOverItAndSoIsEveryCheaperOne) {
  Snapshot s = SusanAlone(8, 3 * kGpu);
  s.running = {Held("susan/a", "n-0", {0, 1}, 0), Held("susan/b", "n-0", {2, 3}, 100),
               Held("susan/c", "n-0", {4}, 900)};
  const Decisions d = Decide(s);
  EXPECT_EQ(ListedOver(d), (std::vector<std::string>{"susan/b", "susan/c"}));
  EXPECT_EQ(FindShare(d, "susan", "train")->over_quota, 3 * kGpu);
}

// Whether the beneficiary (one replica of `need` whole GPUs) could have had room on
// some node from the free devices there and susan's jobs shown over quota there, no
// victims, taking from her no more than `allowance` (what she holds above her quota).
bool OverQuotaWorkWouldDo(const Snapshot& s, const std::set<std::string>& over,
                          const std::set<std::string>& victims, int need, MilliGpu allowance) {
  for (const Node& node : s.nodes) {
    int used = 0;
    std::vector<int> candidates;
    for (const RunningJob& job : s.running) {
      if (job.replicas[0].node != node.name) continue;
      const int gpus = static_cast<int>(job.shape.gpu_milli / kGpu);
      used += gpus;
      if (over.count(job.name) && !victims.count(job.name)) candidates.push_back(gpus);
    }
    const int lacking = need - (node.gpus - used);
    // Every subset of the node's candidates (at most 8): one that frees enough
    // without taking more than the allowance.
    for (unsigned mask = 0; mask < (1u << candidates.size()); ++mask) {
      int freed = 0;
      for (std::size_t i = 0; i < candidates.size(); ++i)
        if (mask & (1u << i)) freed += candidates[i];
      if (freed >= lacking && freed * kGpu <= allowance) return true;
    }
  }
  return false;
}

// One random cluster: susan fills every device with jobs of 1, 2 or 4 GPUs, started at
// few distinct times (ties are common), of two priorities; joe asks for one job within
// his quota. Returns "" or what went wrong; counts the jobs reclaimed.
std::string ReclaimOnRandomCluster(std::uint64_t seed, int& reclaimed) {
  std::mt19937_64 random(seed);
  auto uniform = [&](int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(random);
  };
  ClusterBuilder cluster;
  const int per_node = uniform(0, 1) ? 4 : 8;
  const int nodes = uniform(2, 4);
  const int capacity = per_node * nodes;
  const int susan_quota = uniform(1, capacity / 2);
  const int joe_quota = uniform(1, capacity - susan_quota);
  cluster.Nodes(nodes, per_node, "n").AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("susan", "train", susan_quota * kGpu);
  cluster.AddProject("joe", "train", joe_quota * kGpu);
  Snapshot s = cluster.Build();
  s.now = 4000;
  int count = 0;
  for (int n = 0; n < nodes; ++n) {
    for (int device = 0; device < per_node;) {
      int size = std::min(1 << uniform(0, 2), per_node - device);
      while (per_node % size != 0 || device % size != 0) size /= 2;
      std::vector<int> devices(static_cast<std::size_t>(size));
      for (int i = 0; i < size; ++i) devices[static_cast<std::size_t>(i)] = device + i;
      s.running.push_back(Held(Named("susan/job-", count++), Named("n-", n), devices,
                               600 * uniform(0, 3), uniform(0, 1)));
      device += size;
    }
  }
  Engine engine(s);
  engine.Decide();
  const std::set<std::string> over = ShownOver(engine);
  const int need = uniform(1, std::min(joe_quota, per_node));
  engine.AddPending(Job("joe/bert", "train", "joe", need * kGpu));
  const Decisions d = engine.Decide();
  const std::set<std::string> victims = AsSet(Victims(d));
  reclaimed += static_cast<int>(victims.size());
  const MilliGpu allowance = static_cast<MilliGpu>(capacity - susan_quota) * kGpu;
  for (const std::string& victim : victims) {
    if (over.count(victim)) continue;
    if (OverQuotaWorkWouldDo(s, over, victims, need, allowance))
      return "seed " + std::to_string(seed) + ": " + victim +
             " was shown within quota and reclaimed while jobs shown over quota would do";
  }
  return "";
}

TEST(QuotaStanding, AReclaimNeverStopsAJobShownWithinWhileOverQuotaWorkWouldDo) {
  int reclaimed = 0;
  for (std::uint64_t seed = 0; seed < 3000; ++seed) {
    ASSERT_EQ(ReclaimOnRandomCluster(seed, reclaimed), "");
  }
  EXPECT_GT(reclaimed, 3000);  // Joe's job always needs room: some seeds take several.
}

}  // namespace
}  // namespace gpupool::engine::testing
