// Placer::Fits answers what Placer::Place would, without choosing the room: checked
// on the realistic benchmark cluster for every waiting job, at several replica
// counts, with the nodes of its pool and with a few nodes only.
#include <gtest/gtest.h>

#include <vector>

#include "engine/packing.h"
#include "engine/placement.h"
#include "engine/state.h"
#include "realistic_cluster.h"

namespace gpupool::engine::internal {
namespace {

// The realistic benchmark cluster of 300 nodes at `fill`, and a placer over it.
struct RealisticPlacer {
  explicit RealisticPlacer(double fill)
      : state(Snapshot(fill), Options{}), model(PackingModel::For(state)), placer(state, model) {}
  static engine::Snapshot Snapshot(double fill) {
    bench::RealisticSpec spec;
    spec.nodes = 300;
    spec.fill = fill;
    return bench::BuildRealisticCluster(spec).snapshot;
  }
  ClusterState state;
  PackingModel model;
  Placer placer;
};

void ExpectFitsAgreesWithPlace(double fill) {
  RealisticPlacer realistic(fill);
  ClusterState& state = realistic.state;
  Placer& placer = realistic.placer;
  int fits = 0;
  int fails = 0;
  for (const JobState& job : state.jobs) {
    if (!job.alive || job.running || job.queue < 0) continue;
    std::vector<int> pool = EligibleNodes(state, job);
    std::vector<char> member(state.nodes.size(), 0);
    for (int n : pool) member[n] = 1;
    std::vector<int> few(pool.begin(), pool.begin() + std::min<std::size_t>(pool.size(), 40));
    for (int count : {1, 2, job.min_replicas, 12, 40}) {
      bool placed = !placer.Place(job, count, pool, &member).replicas.empty();
      ASSERT_EQ(placer.Fits(job, count, pool, &member), placed) << job.name << " x" << count;
      ASSERT_EQ(placer.Fits(job, count, few), !placer.Place(job, count, few).replicas.empty())
          << job.name << " x" << count << " on 40 nodes";
      (placed ? fits : fails)++;
    }
  }
  // Both answers occur, so the comparison says something.
  EXPECT_GT(fits, 100);
  EXPECT_GT(fails, 100);
}

// The room TrackRoom keeps while running jobs are released one by one and taken back,
// against Fits summing it again after each change.
void ExpectTrackedRoomAgreesWithFits(double fill) {
  RealisticPlacer realistic(fill);
  ClusterState& state = realistic.state;
  Placer& placer = realistic.placer;
  std::vector<int> running;
  for (int j = 0; j < static_cast<int>(state.jobs.size()); ++j) {
    if (state.jobs[j].running) running.push_back(j);
  }
  int compared = 0;
  int fitting = 0;
  for (const JobState& job : state.jobs) {
    if (!job.alive || job.running || job.queue < 0 || job.min_replicas < 2) continue;
    std::vector<int> pool = EligibleNodes(state, job);
    std::vector<char> member(state.nodes.size(), 0);
    for (int n : pool) member[n] = 1;
    // Counts just beyond the room there is now: releases make them fit one by one.
    int beyond = 2;
    while (beyond < 200 && placer.Fits(job, beyond, pool, &member)) ++beyond;
    for (int count : {beyond, beyond + 2}) {
      if (!placer.TrackRoom(job, count, pool, &member)) continue;
      auto change = [&](int r, bool release) {
        for (const Placed& p : state.jobs[r].placed) {
          placer.Untrack(p.node);
          release ? state.Release(state.jobs[r], p) : state.Take(state.jobs[r], p);
          placer.Retrack(p.node);
        }
      };
      bool before = placer.TrackedFits();
      const std::size_t start = static_cast<std::size_t>(compared % 7);
      for (std::size_t i = start; i < running.size(); i += 7) {
        change(running[i], true);
        bool tracked = placer.TrackedFits();
        fitting += tracked;
        placer.StopTracking();
        ASSERT_EQ(tracked, placer.Fits(job, count, pool, &member)) << job.name << " x" << count;
        ASSERT_TRUE(placer.TrackRoom(job, count, pool, &member));
        ASSERT_EQ(placer.TrackedFits(), tracked) << job.name << " x" << count;
        ++compared;
      }
      for (std::size_t i = start; i < running.size(); i += 7) change(running[i], false);
      placer.StopTracking();
      ASSERT_EQ(placer.Fits(job, count, pool, &member), before) << job.name << " after taking back";
    }
  }
  // Both answers occur, so the comparison says something.
  EXPECT_GT(fitting, 10);
  EXPECT_GT(compared - fitting, 10);
}

TEST(PlacerFits, TrackedRoomAgreesWithFits) {
  ExpectTrackedRoomAgreesWithFits(0.95);
  ExpectTrackedRoomAgreesWithFits(0.70);
}

TEST(PlacerFits, AgreesWithPlaceOnAFullCluster) { ExpectFitsAgreesWithPlace(0.95); }

TEST(PlacerFits, AgreesWithPlaceOnAnEmptierCluster) { ExpectFitsAgreesWithPlace(0.70); }

}  // namespace
}  // namespace gpupool::engine::internal
