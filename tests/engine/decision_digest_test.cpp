// The engine's decisions on the benchmark clusters, pinned: a digest of everything a
// cycle decides (admissions with their placements, victims, waiting codes and messages,
// per-project and per-department shares, the jobs shown over quota) for fixed seeds at small sizes.
// A change that only makes the engine faster keeps every digest; a change of the rules updates them
// on purpose, with the reason in its commit.
#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>

#include "gpupool/engine/engine.h"
#include "realistic_cluster.h"
#include "synthetic_cluster.h"

namespace gpupool::engine::bench {
namespace {

// FNV-1a over every field, with a separator after each so that fields cannot run
// into one another.
class Digest {
 public:
  Digest& Add(std::string_view text) {
    for (char c : text) Mix(static_cast<unsigned char>(c));
    Mix(0xff);
    return *this;
  }
  Digest& Add(std::int64_t value) {
    for (int shift = 0; shift < 64; shift += 8) Mix(static_cast<std::uint8_t>(value >> shift));
    Mix(0xfe);
    return *this;
  }
  std::uint64_t value() const { return hash_; }

 private:
  void Mix(std::uint8_t byte) {
    hash_ ^= byte;
    hash_ *= 0x100000001b3ULL;
  }
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

void AddPlacements(Digest& digest, const std::vector<ReplicaPlacement>& replicas) {
  digest.Add(static_cast<std::int64_t>(replicas.size()));
  for (const ReplicaPlacement& replica : replicas) {
    digest.Add(replica.node);
    for (int device : replica.devices) digest.Add(device);
  }
}

std::uint64_t DigestOf(const Decisions& d) {
  Digest digest;
  for (const Admission& a : d.admissions) {
    digest.Add("admit").Add(a.job).Add(a.over_quota).Add(a.message);
    AddPlacements(digest, a.replicas);
    for (const std::string& victim : a.waits_for) digest.Add(victim);
  }
  for (const Preemption& p : d.preemptions) {
    digest.Add("preempt").Add(p.victim).Add(ToString(p.reason)).Add(p.beneficiary).Add(p.message);
  }
  for (const Waiting& w : d.waiting)
    digest.Add("wait").Add(w.job).Add(ToString(w.code)).Add(w.message);
  for (const ProjectShare& s : d.shares) {
    digest.Add("share").Add(s.project).Add(s.queue).Add(s.quota).Add(s.deserved);
    digest.Add(s.allocated).Add(s.over_quota).Add(s.pending);
  }
  for (const DepartmentShare& s : d.department_shares) {
    digest.Add("department").Add(s.department).Add(s.queue).Add(s.quota).Add(s.deserved);
    digest.Add(s.allocated).Add(s.over_quota).Add(s.pending);
  }
  for (const Standing& s : d.standing) digest.Add("standing").Add(s.job).Add(s.over_quota);
  return digest.value();
}

Snapshot Realistic(int nodes, int departments, std::uint64_t seed) {
  RealisticSpec spec;
  spec.nodes = nodes;
  spec.departments = departments;
  spec.seed = seed;
  return BuildRealisticCluster(spec).snapshot;
}

Snapshot Uniform(int departments, bool skewed) {
  ClusterSpec spec;
  spec.nodes = 100;
  spec.projects = 40;
  spec.running = 600;
  spec.pending = 400;
  spec.departments = departments;
  spec.skewed = skewed;
  return SyntheticCluster(spec);
}

// A full cycle from the snapshot, then, on the kept state, the victims gone and a
// second full cycle: decisions of a state built by loading and of one changed in place.
struct TwoCycles {
  std::uint64_t first = 0;
  std::uint64_t second = 0;
};

TwoCycles DigestsOf(const Snapshot& snapshot) {
  TwoCycles digests;
  Decisions decided = Decide(snapshot);
  EXPECT_FALSE(decided.admissions.empty());
  EXPECT_FALSE(decided.waiting.empty());
  digests.first = DigestOf(decided);
  Engine engine(snapshot);
  Decisions first = engine.Decide();
  EXPECT_EQ(DigestOf(first), digests.first) << "Engine and Decide() disagree";
  for (const Preemption& p : first.preemptions) engine.VictimGone(p.victim);
  digests.second = DigestOf(engine.Decide());
  return digests;
}

// The digest of a Decisions built by hand: the hash itself does not drift.
TEST(DecisionDigest, HashIsStable) {
  Decisions d;
  d.admissions.push_back({"ns/a", {{"node-1", {0, 1}}}, true, {"ns/b"}, "waiting"});
  d.preemptions.push_back({"ns/b", PreemptionReason::kReclaim, "ns/a", "reclaimed"});
  d.waiting.push_back({"ns/c", WaitCode::kCapacity, "no room"});
  EXPECT_EQ(DigestOf(d), 0xdbe6a103314297c4ULL);
  d.admissions[0].replicas[0].devices[1] = 2;
  EXPECT_NE(DigestOf(d), 0xdbe6a103314297c4ULL);
}

TEST(DecisionDigest, RealisticCluster) {
  TwoCycles d = DigestsOf(Realistic(1000, 0, 42));
  EXPECT_EQ(d.first, 0x4a6bbfa2fb0fc749ULL);
  EXPECT_EQ(d.second, 0xa54a2debe23cb191ULL);
}

TEST(DecisionDigest, RealisticClusterOtherSeedFewDepartments) {
  TwoCycles d = DigestsOf(Realistic(300, 5, 7));
  EXPECT_EQ(d.first, 0x8b92bd63642f9b7bULL);
  EXPECT_EQ(d.second, 0xa3c676466cac527eULL);
}

TEST(DecisionDigest, RealisticClusterWithDepartments) {
  TwoCycles d = DigestsOf(Realistic(1000, 20, 42));
  EXPECT_EQ(d.first, 0x8939ced7109fe948ULL);
  EXPECT_EQ(d.second, 0x530fdd05ca97f4b0ULL);
}

TEST(DecisionDigest, UniformCluster) {
  TwoCycles d = DigestsOf(Uniform(0, false));
  EXPECT_EQ(d.first, 0xace8cfa081cf0c30ULL);
  EXPECT_EQ(d.second, 0xd0a7b5b908babd0aULL);
}

TEST(DecisionDigest, UniformClusterSkewedWithDepartments) {
  TwoCycles d = DigestsOf(Uniform(5, true));
  EXPECT_EQ(d.first, 0xf1c56628b3385686ULL);
  EXPECT_EQ(d.second, 0x6b595e3cbb6ca2eaULL);
}

}  // namespace
}  // namespace gpupool::engine::bench
