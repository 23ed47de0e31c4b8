// Randomized property tests: small random clusters, random arrivals and
// completions, every invariant checked after every cycle. Seeded and reproducible:
// a failure names its seed and cycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "cluster_builder.h"
#include "gpupool/engine/live_engine.h"
#include "invariants.h"
#include "random_updates.h"

namespace gpupool::engine::testing {
namespace {

constexpr int kSeeds = 500;
constexpr int kCyclesPerSeed = 20;  // 10,000 cycles in all.

std::string Named(const char* prefix, int index) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%s%d", prefix, index);
  return buffer;
}

class RandomCluster {
 public:
  // `departments`: projects grouped in random departments (drawn after everything
  // else, so the clusters of the other tests stay as they are).
  explicit RandomCluster(std::uint64_t seed, bool departments = false)
      : rng_(seed), departments_(departments) {}

  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  Snapshot Cluster() {
    Snapshot s;
    int nodes = Uniform(2, 6);
    MilliGpu capacity = 0;
    for (int i = 0; i < nodes; ++i) {
      Node n;
      n.name = Named("n", i);
      n.gpus = Uniform(1, 8);
      n.gpu_model = Chance(0.7) ? "A100" : "T4";
      n.labels = {{"rack", Chance(0.5) ? "a" : "b"}, {"pool", Chance(0.8) ? "train" : "build"}};
      n.cpu_milli = Uniform(8, 64) * 1000;
      n.memory_bytes = Bytes{1} << 40;
      if (Chance(0.15)) n.unmanaged_milli.assign(static_cast<std::size_t>(n.gpus), 0);
      if (!n.unmanaged_milli.empty()) n.unmanaged_milli[0] = 250 * Uniform(1, 4);
      int spare = n.gpus - (n.unmanaged_milli.empty() ? 0 : 1);
      if (Chance(0.3)) n.unmanaged_gpus = Uniform(0, spare);
      n.schedulable = !Chance(0.05);
      if (n.labels["pool"] == "train") capacity += n.gpus * kGpu;
      s.nodes.push_back(std::move(n));
    }
    Queue train{"train", {{"pool", "train"}}, Sharing::kGuaranteed, Uniform(0, 1) * 60};
    train.reclaim = true;
    Queue build{"build", {{"pool", "build"}}, Sharing::kFixed, 0};
    s.queues = {train, build};
    int projects = Uniform(2, 4);
    for (int p = 0; p < projects; ++p) {
      Project project{Named("p", p), Uniform(0, 1), {}};
      MilliGpu quota = capacity / projects / 500 * 500;
      MilliGpu limit = Chance(0.3) ? quota + 1000 * Uniform(0, 4) : -1;
      project.quotas.push_back({"train", quota, limit, Uniform(0, 3), -1, -1});
      project.quotas.push_back({"build", 500 * Uniform(0, 4), -1, 1, -1, -1});
      s.projects.push_back(std::move(project));
    }
    projects_ = projects;
    if (departments_) AddDepartments(s, capacity);
    return s;
  }

  // One or two departments, their train quota sometimes below their projects'
  // guarantees together (which are then scaled), sometimes with a limit; most
  // projects in one, some in none or in one that does not exist.
  void AddDepartments(Snapshot& s, MilliGpu capacity) {
    int count = Uniform(1, 2);
    for (int d = 0; d < count; ++d)
      s.departments.push_back(RandomDepartment(Named("d", d), capacity));
    for (Project& p : s.projects) {
      if (Chance(0.8)) p.department = Named("d", Uniform(0, count - 1));
      if (Chance(0.05)) p.department = "missing";
    }
  }

  Department RandomDepartment(const std::string& name, MilliGpu capacity) {
    Department d{name, {}};
    MilliGpu quota = 500 * Uniform(0, static_cast<int>(capacity / 500));
    MilliGpu limit = Chance(0.4) ? quota + 1000 * Uniform(0, 3) : -1;
    d.quotas.push_back({"train", quota, limit, Uniform(0, 3)});
    if (Chance(0.5)) d.quotas.push_back({"build", 500 * Uniform(0, 4), -1, 1});
    return d;
  }

  // Between cycles: a department's quotas changed, or it is removed, or created again.
  void ChangeDepartments(Engine& engine, const Snapshot& s) {
    if (!departments_ || !Chance(0.2)) return;
    std::string name = Named("d", Uniform(0, 1));
    bool exists = std::any_of(s.departments.begin(), s.departments.end(),
                              [&](const Department& d) { return d.name == name; });
    MilliGpu capacity = 0;
    for (const Node& n : s.nodes) capacity += n.gpus * kGpu;
    if (exists && Chance(0.3)) {
      engine.RemoveDepartment(name);
    } else {
      engine.UpsertDepartment(RandomDepartment(name, capacity));
    }
  }

  PendingJob Job(Seconds now) {
    PendingJob j;
    j.name = Named("j", next_++);
    bool build = Chance(0.2);
    j.queue = build ? "build" : (Chance(0.02) ? "missing" : "train");
    j.project = Named("p", Uniform(0, projects_ - 1));
    j.workload_class = build ? WorkloadClass::kBuild
                             : (Chance(0.1) ? WorkloadClass::kInference : WorkloadClass::kTrain);
    static const MilliGpu sizes[] = {250, 500, 1000, 1000, 2000, 4000, 0};
    j.shape.gpu_milli = sizes[Uniform(0, 6)];
    if (Chance(0.02)) j.shape.gpu_milli = 1500;  // Invalid: must be told so.
    j.shape.cpu_milli = 1000 * Uniform(0, 4);
    j.replicas = Chance(0.3) ? Uniform(2, 3) : 1;
    j.min_replicas = Chance(0.5) ? j.replicas : Uniform(1, j.replicas);
    j.priority = Uniform(0, 2);
    if (Chance(0.2)) {
      j.topology = {Chance(0.5) ? TopologyMode::kRequired : TopologyMode::kPreferred, "rack"};
    }
    if (Chance(0.1)) j.gpu_models = {"T4"};
    j.arrival_time = now;
    return j;
  }

 private:
  std::mt19937_64 rng_;
  bool departments_ = false;
  int projects_ = 2;
  int next_ = 0;
};

std::string Describe(const Snapshot& before, const Decisions& d) {
  std::string out = "\nrunning before:";
  for (const RunningJob& r : before.running) {
    out += "\n  " + r.name + " " + r.project + "/" + r.queue + " " +
           std::to_string(r.shape.gpu_milli) + "x" + std::to_string(r.replicas.size()) + " prio " +
           std::to_string(r.priority) + " start " + std::to_string(r.start_time) +
           (r.terminating ? " terminating" : "");
    for (const ReplicaPlacement& p : r.replicas) {
      out += " " + p.node + ":";
      for (int d : p.devices) out += std::to_string(d);
    }
  }
  out += "\npending before:";
  for (const PendingJob& p : before.pending) {
    out += "\n  " + p.name + " " + p.project + "/" + p.queue + " " +
           std::to_string(p.shape.gpu_milli) + "x" + std::to_string(p.replicas) + " prio " +
           std::to_string(p.priority);
  }
  for (const Preemption& p : d.preemptions) {
    out += "\npreempt " + p.victim + " for " + p.beneficiary + ": " + p.message;
  }
  for (const Admission& a : d.admissions) {
    out += "\nadmit " + a.job + (a.over_quota ? " over quota" : "");
    for (const ReplicaPlacement& r : a.replicas) {
      out += " " + r.node + ":";
      for (int d : r.devices) out += std::to_string(d);
    }
  }
  for (const Waiting& w : d.waiting) out += "\nwait " + w.job + ": " + w.message;
  for (const Node& n : before.nodes) {
    out += "\nnode " + n.name + " gpus " + std::to_string(n.gpus) + " unmanaged " +
           std::to_string(n.unmanaged_gpus) + " cpu " + std::to_string(n.cpu_milli) + " " +
           n.labels.at("pool") + (n.schedulable ? "" : " cordoned");
  }
  for (const Department& dep : before.departments) {
    out += "\ndepartment " + dep.name;
    for (const DepartmentQuota& q : dep.quotas) {
      out +=
          " " + q.queue + " quota " + std::to_string(q.gpu) + " limit " + std::to_string(q.limit);
    }
  }
  for (const Project& p : before.projects) {
    if (!p.department.empty()) out += "\nproject " + p.name + " in " + p.department;
  }
  for (const ProjectShare& s : d.shares) {
    out += "\nshare " + s.project + "/" + s.queue + " quota " + std::to_string(s.quota) +
           " allocated " + std::to_string(s.allocated);
  }
  return out;
}

// An incremental cycle lists only the jobs it re-examined; every other pending job
// keeps its last reason. Returns the decisions with those carried reasons added, so
// every invariant is checked against every pending job.
Decisions WithCarriedReasons(const Snapshot& before, const Decisions& d,
                             std::map<std::string, Waiting>& last) {
  for (const Waiting& w : d.waiting) last[w.job] = w;
  Decisions merged = d;
  merged.waiting.clear();
  std::set<std::string> admitted;
  for (const Admission& a : d.admissions) admitted.insert(a.job);
  for (const PendingJob& p : before.pending) {
    if (admitted.count(p.name)) continue;
    auto it = last.find(p.name);
    if (it != last.end()) merged.waiting.push_back(it->second);
  }
  return merged;
}

// A job admitted twice, or both admitted and waiting, in one cycle ("" if none).
std::string DecidedTwice(const Decisions& d) {
  std::map<std::string, int> seen;
  for (const Admission& a : d.admissions) {
    if (++seen[a.job] > 1) return a.job;
  }
  for (const Waiting& w : d.waiting) {
    if (++seen[w.job] > 1) return w.job;
  }
  return "";
}

std::map<std::string, int> UnmanagedOf(const Snapshot& s) {
  std::map<std::string, int> out;
  for (const Node& n : s.nodes) out[n.name] = n.unmanaged_gpus;
  return out;
}

// `interval`: Options::full_cycle_interval_seconds; 0 compares every cycle with the
// pure entry point, above 0 most cycles are incremental.
// `live`: random cluster updates (random_updates.h) between cycles; otherwise every
// victim is gone before the next cycle.
void RunSeed(std::uint64_t seed, bool reserve, Packing packing, Seconds interval, bool live = false,
             bool departments = false) {
  RandomCluster random(seed, departments);
  RandomUpdates updates(seed);
  Options options;
  options.reserve_for_blocked_jobs = reserve;
  options.packing = packing;
  options.full_cycle_interval_seconds = interval;
  Snapshot cluster = random.Cluster();
  std::map<std::string, int> unmanaged;  // As the cluster says: checked against it.
  for (const Node& n : cluster.nodes) unmanaged[n.name] = n.unmanaged_gpus;
  Engine engine(cluster, options);
  std::map<std::string, Waiting> last_reason;
  Seconds now = 0;
  for (int cycle = 0; cycle < kCyclesPerSeed; ++cycle) {
    now += random.Uniform(0, 90);
    engine.SetNow(now);
    for (int i = random.Uniform(0, 5); i > 0; --i) engine.AddPending(random.Job(now));
    for (const RunningJob& r : engine.ToSnapshot().running) {
      if (!live && r.terminating) engine.VictimGone(r.name);
      if (random.Chance(0.15)) engine.Finish(r.name);
    }
    if (live) updates.Apply(engine, unmanaged);
    if (live) random.ChangeDepartments(engine, engine.ToSnapshot());
    Snapshot before = engine.ToSnapshot();
    ASSERT_EQ(UnmanagedOf(before), unmanaged) << "seed " << seed << " cycle " << cycle;
    Decisions decisions = engine.Decide();
    ASSERT_EQ(DecidedTwice(decisions), "") << "seed " << seed << " cycle " << cycle;
    Decisions checked = decisions;
    if (interval > 0) checked = WithCarriedReasons(before, decisions, last_reason);
    std::vector<std::string> errors =
        CheckInvariants(before, checked, engine.ToSnapshot(), !reserve);
    ASSERT_TRUE(errors.empty()) << "seed " << seed << " cycle " << cycle << ": " << errors[0]
                                << Describe(before, checked);
    if (interval > 0) continue;
    // The pure entry point decides exactly as the engine does.
    Decisions pure = Decide(before, options);
    ASSERT_EQ(Admitted(pure), Admitted(decisions)) << "seed " << seed << " cycle " << cycle;
    ASSERT_EQ(Victims(pure), Victims(decisions)) << "seed " << seed << " cycle " << cycle;
  }
}

// An operator's engine: each cycle a LiveEngine is given the cluster as the API
// would say it (its own last decisions carried out, then random arrivals,
// completions, departed victims and live updates), and follows it in place, never
// rebuilt. Every cycle full (`interval` 0): it decides as the pure entry point
// does on the same snapshot. Incremental cycles: its decisions keep every invariant.
void RunFollowerSeed(std::uint64_t seed, Seconds interval, bool departments = false) {
  RandomCluster random(seed, departments);
  RandomUpdates updates(seed);
  Options options;
  options.full_cycle_interval_seconds = interval;
  Snapshot cluster = random.Cluster();
  std::map<std::string, int> unmanaged;
  for (const Node& n : cluster.nodes) unmanaged[n.name] = n.unmanaged_gpus;
  LiveEngine follower(options);
  if (seed % 5 == 0) follower.Decide(Snapshot{});  // Started before the cluster existed.
  std::map<std::string, Waiting> last_reason;
  Seconds now = 0;
  for (int cycle = 0; cycle < kCyclesPerSeed; ++cycle) {
    Engine api(cluster, options);  // What the API server says, changed by the cluster.
    now += random.Uniform(0, 90);
    api.SetNow(now);
    for (int i = random.Uniform(0, 5); i > 0; --i) api.AddPending(random.Job(now));
    for (const RunningJob& r : cluster.running) {
      if (r.terminating && random.Chance(0.5)) api.VictimGone(r.name);
      if (random.Chance(0.15)) api.Finish(r.name);
    }
    updates.Apply(api, unmanaged);
    random.ChangeDepartments(api, api.ToSnapshot());
    const Snapshot before = api.ToSnapshot();
    const Decisions decisions = follower.Decide(before);
    const std::string where = "seed " + std::to_string(seed) + " cycle " + std::to_string(cycle);
    ASSERT_EQ(follower.stats().rebuilds, 1u) << where;
    ASSERT_EQ(DecidedTwice(decisions), "") << where;
    Decisions checked = decisions;
    if (interval > 0) {
      checked = WithCarriedReasons(before, decisions, last_reason);
    } else {
      const Decisions pure = Decide(before, options);
      ASSERT_EQ(Admitted(pure), Admitted(decisions)) << where;
      ASSERT_EQ(Victims(pure), Victims(decisions)) << where;
    }
    cluster = follower.State();
    std::vector<std::string> errors = CheckInvariants(before, checked, cluster, false);
    ASSERT_TRUE(errors.empty()) << where << ": " << errors[0] << Describe(before, checked);
  }
}

TEST(Properties, LiveEngineFollowsEveryClusterInPlace) {
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    RunFollowerSeed(seed, seed % 2 == 0 ? 0 : 120);
    if (HasFatalFailure()) return;
  }
}

Packing PackingFor(std::uint64_t seed) {
  return seed % 3 == 0 ? Packing::kBestFit : Packing::kFragmentationAware;
}

TEST(Properties, InvariantsHoldOverTenThousandRandomCycles) {
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    RunSeed(seed, seed % 2 == 0, PackingFor(seed), 0);
    if (HasFatalFailure()) return;
  }
}

// Reclaim progress and fair share need every room visible in the snapshot: with
// reservations off, they are checked on every seed (the tests above check them on
// the seeds that run without reservations).
TEST(Properties, ReclaimProgressAndFairShareOnEverySeed) {
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    RunSeed(seed, false, PackingFor(seed), 0);
    if (HasFatalFailure()) return;
  }
}

// Incremental cycles between full ones (every 120 s of simulated time, or when a
// running job passes its minimum runtime): the same invariants, every pending job
// with a reason.
TEST(Properties, IncrementalCyclesKeepEveryInvariant) {
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    RunSeed(seed, seed % 2 == 0, PackingFor(seed), seed % 4 == 0 ? 100000 : 120);
    if (HasFatalFailure()) return;
  }
}

// A live cluster: nodes, quotas, queues, projects and jobs change between cycles,
// victims stop when they stop. Full cycles are also compared with the pure entry
// point on the same snapshot (terminating victims included).
TEST(Properties, LiveUpdatesKeepEveryInvariant) {
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    RunSeed(seed, seed % 2 == 0, PackingFor(seed), 0, true);
    if (HasFatalFailure()) return;
  }
}

TEST(Properties, LiveUpdatesKeepEveryInvariantInIncrementalCycles) {
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    RunSeed(seed, seed % 2 == 0, PackingFor(seed), seed % 4 == 0 ? 100000 : 120, true);
    if (HasFatalFailure()) return;
  }
}

// The same clusters with departments: every invariant above, and the department
// ones (guarantees within the department's quota, its limit, its accounting), in
// full and incremental cycles, with departments changed and removed between cycles,
// and followed by an operator's engine.
TEST(Properties, DepartmentsKeepEveryInvariant) {
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    RunSeed(seed, seed % 2 == 0, PackingFor(seed), 0, false, true);
    if (HasFatalFailure()) return;
    RunSeed(seed, seed % 2 == 0, PackingFor(seed), seed % 4 == 0 ? 100000 : 120, true, true);
    if (HasFatalFailure()) return;
    RunFollowerSeed(seed, seed % 2 == 0 ? 0 : 120, true);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace gpupool::engine::testing
