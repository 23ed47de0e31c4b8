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

void ExpectFitsAgreesWithPlace(double fill) {
  bench::RealisticSpec spec;
  spec.nodes = 300;
  spec.fill = fill;
  EngineState state(bench::BuildRealisticCluster(spec).snapshot, Options{});
  PackingModel model = PackingModel::For(state);
  Placer placer(state, model);
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

TEST(PlacerFits, AgreesWithPlaceOnAFullCluster) { ExpectFitsAgreesWithPlace(0.95); }

TEST(PlacerFits, AgreesWithPlaceOnAnEmptierCluster) { ExpectFitsAgreesWithPlace(0.70); }

}  // namespace
}  // namespace gpupool::engine::internal
