// The department rules of docs/scheduling.md ("Departments"), one table or test
// per rule: guarantees within the department's, idle GPUs to the same department
// first and then by department weight, the department limit, reclaim from
// departments over their quota first, and nothing changed without departments.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "cluster_builder.h"

namespace gpupool::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

RunningJob Running(const std::string& name, const std::string& project, const std::string& node,
                   int device, Seconds start = 0) {
  RunningJob job;
  job.name = name;
  job.queue = "train";
  job.project = project;
  job.shape.gpu_milli = kGpu;
  job.start_time = start;
  job.replicas = {{node, {device}}};
  return job;
}

// GPUs admitted per project in one cycle.
std::map<std::string, MilliGpu> AdmittedGpus(const Snapshot& s, const Decisions& d) {
  std::map<std::string, MilliGpu> out;
  for (const Admission& a : d.admissions) {
    for (const PendingJob& p : s.pending) {
      if (p.name == a.job) out[p.project] += p.shape.gpu_milli * std::ssize(a.replicas);
    }
  }
  return out;
}

TEST(Departments, GuaranteesFitInTheDepartmentsQuota) {
  struct Case {
    const char* rule;
    MilliGpu department_quota;  // -1: the department has no entry for the queue.
    std::vector<MilliGpu> project_quotas;
    std::vector<MilliGpu> guarantees;
  };
  std::vector<Case> cases = {
      {"within the department's quota: as given",
       8 * kGpu,
       {2 * kGpu, 3 * kGpu},
       {2 * kGpu, 3 * kGpu}},
      {"above it: each scaled by the same fraction",
       4 * kGpu,
       {4 * kGpu, 4 * kGpu},
       {2 * kGpu, 2 * kGpu}},
      {"scaled shares round down to a milli-GPU", kGpu, {kGpu, kGpu, kGpu}, {333, 333, 333}},
      {"a department quota of 0 guarantees nothing", 0, {kGpu, 2 * kGpu}, {0, 0}},
      {"no entry for the queue: no bound", -1, {5 * kGpu, 5 * kGpu}, {5 * kGpu, 5 * kGpu}},
  };
  for (const Case& c : cases) {
    ClusterBuilder cluster;
    cluster.Nodes(2, 8).AddQueue("train", Sharing::kGuaranteed);
    if (c.department_quota >= 0) cluster.AddDepartment("research", "train", c.department_quota);
    if (c.department_quota < 0) cluster.AddDepartment("research", "other", kGpu);
    for (std::size_t p = 0; p < c.project_quotas.size(); ++p) {
      std::string name = Named("p", static_cast<long long>(p));
      cluster.AddProject(name, "train", c.project_quotas[p]).InDepartment(name, "research");
    }
    Decisions d = Decide(cluster.Build());
    for (std::size_t p = 0; p < c.guarantees.size(); ++p) {
      const ProjectShare* share = FindShare(d, Named("p", static_cast<long long>(p)), "train");
      MilliGpu quota = share ? share->quota : 0;
      EXPECT_EQ(quota, c.guarantees[p]) << c.rule << ", project " << p;
    }
  }
}

// The guarantee in force is what reclaim gives back: a project whose quota is scaled
// to 2 GPUs reclaims 2, not the 4 it names.
TEST(Departments, ReclaimGivesBackTheScaledGuarantee) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 8).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddDepartment("research", "train", 4 * kGpu);
  cluster.AddProject("a", "train", 4 * kGpu).InDepartment("a", "research");
  cluster.AddProject("b", "train", 4 * kGpu).InDepartment("b", "research");
  cluster.AddProject("other", "train", 0);
  for (int i = 0; i < 8; ++i)
    cluster.snapshot().running.push_back(Running(Named("o-", i), "other", "node-0", i));
  for (int i = 0; i < 4; ++i) cluster.Submit(Named("a-", i), "train", "a", kGpu);
  Decisions d = Decide(cluster.Build());
  EXPECT_EQ(Victims(d).size(), 2u);
  EXPECT_THAT(Admitted(d), ElementsAre("a-0", "a-1"));
}

// Idle GPUs go first to projects of the same department: a's department has 4 GPUs
// of quota no project of it uses, so a borrows them before x of the other
// department borrows anything. Without departments they share by dominant share.
TEST(Departments, IdleGpusGoFirstToTheSameDepartment) {
  struct Case {
    const char* rule;
    bool departments;
    std::map<std::string, MilliGpu> admitted;
  };
  std::vector<Case> cases = {
      {"with departments: a takes its department's unused quota first",
       true,
       {{"a", 6 * kGpu}, {"x", 2 * kGpu}}},
      {"without: the two share the idle GPUs", false, {{"a", 4 * kGpu}, {"x", 4 * kGpu}}},
  };
  for (const Case& c : cases) {
    ClusterBuilder cluster;
    cluster.Nodes(1, 8).AddQueue("train", Sharing::kGuaranteed);
    cluster.AddProject("a", "train", 2 * kGpu).AddProject("b", "train", 0);
    cluster.AddProject("x", "train", 2 * kGpu);
    if (c.departments) {
      cluster.AddDepartment("research", "train", 6 * kGpu).AddDepartment("ops", "train", 2 * kGpu);
      cluster.InDepartment("a", "research").InDepartment("b", "research");
      cluster.InDepartment("x", "ops");
    }
    for (int i = 0; i < 8; ++i) {
      cluster.Submit(Named("x-", i), "train", "x", kGpu);
      cluster.Submit(Named("a-", i), "train", "a", kGpu);
    }
    Snapshot s = cluster.Build();
    EXPECT_EQ(AdmittedGpus(s, Decide(s)), c.admitted) << c.rule;
  }
}

// Then across departments by department weight: two departments, equal quotas,
// weights 1 and 3 share the 8 idle GPUs 2 : 6, whatever their projects' own weights.
TEST(Departments, IdleGpusAcrossDepartmentsByDepartmentWeight) {
  struct Case {
    const char* rule;
    std::int64_t weight_research, weight_ops;
    std::int64_t project_weight_a;  // Inside research: no say across departments.
    std::map<std::string, MilliGpu> admitted;
  };
  std::vector<Case> cases = {
      {"weights 1 : 3", 1, 3, 1, {{"a", 3 * kGpu}, {"x", 7 * kGpu}}},
      {"weights 3 : 1", 3, 1, 1, {{"a", 7 * kGpu}, {"x", 3 * kGpu}}},
      {"a project's weight does not count across departments",
       1,
       1,
       9,
       {{"a", 5 * kGpu}, {"x", 5 * kGpu}}},
  };
  for (const Case& c : cases) {
    ClusterBuilder cluster;
    cluster.Nodes(1, 10).AddQueue("train", Sharing::kGuaranteed);
    cluster.AddProject("a", "train", kGpu, 0, -1, c.project_weight_a);
    cluster.AddProject("x", "train", kGpu);
    cluster.AddDepartment("research", "train", kGpu, -1, c.weight_research);
    cluster.AddDepartment("ops", "train", kGpu, -1, c.weight_ops);
    cluster.InDepartment("a", "research").InDepartment("x", "ops");
    for (int i = 0; i < 10; ++i) {
      cluster.Submit(Named("a-", i), "train", "a", kGpu);
      cluster.Submit(Named("x-", i), "train", "x", kGpu);
    }
    Snapshot s = cluster.Build();
    Decisions d = Decide(s);
    EXPECT_EQ(AdmittedGpus(s, d), c.admitted) << c.rule;
    EXPECT_EQ(FindDepartmentShare(d, "research", "train")->allocated, c.admitted.at("a")) << c.rule;
  }
}

// A job that alone needs more than its project's or department's limit could wait
// forever: it says so, apart from the jobs that wait for their project's usage to fall.
TEST(Departments, AJobLargerThanALimitWaitsWithItsOwnReason) {
  ClusterBuilder cluster;
  cluster.Nodes(2, 8).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddDepartment("research", "train", kGpu, 3 * kGpu);
  cluster.AddProject("a", "train", kGpu, 0, 2 * kGpu);
  cluster.AddProject("b", "train", kGpu).InDepartment("b", "research");
  cluster.Submit("a-fits", "train", "a", kGpu);
  cluster.Submit("a-next", "train", "a", 2 * kGpu);
  cluster.Submit("a-big", "train", "a", 4 * kGpu);
  cluster.Submit("b-big", "train", "b", 2 * kGpu, 2);
  Decisions d = Decide(cluster.Build());
  EXPECT_THAT(Admitted(d), UnorderedElementsAre("a-fits"));
  ASSERT_NE(FindWaiting(d, "a-next"), nullptr);
  EXPECT_EQ(FindWaiting(d, "a-next")->code, WaitCode::kLimit);
  const Waiting* project = FindWaiting(d, "a-big");
  ASSERT_NE(project, nullptr);
  EXPECT_EQ(project->code, WaitCode::kExceedsLimit);
  EXPECT_EQ(project->message,
            "this job needs 4 GPUs, more than the limit of project a in queue train (2 GPUs): it "
            "cannot start until the limit is raised or it asks for fewer");
  const Waiting* department = FindWaiting(d, "b-big");
  ASSERT_NE(department, nullptr);
  EXPECT_EQ(department->code, WaitCode::kExceedsLimit);
  EXPECT_EQ(department->message,
            "this job needs 4 GPUs, more than the limit of department research in queue train (3 "
            "GPUs): it cannot start until the limit is raised or it asks for fewer");
  EXPECT_STREQ(ToString(WaitCode::kExceedsLimit), "ExceedsLimit");
}

// Without a limit of its own, a project's limit is its pool's capacity: a job
// larger than the pool says that the pool, not a limit, is what stops it.
TEST(Departments, AJobLargerThanThePoolSaysSo) {
  ClusterBuilder cluster;
  cluster.Nodes(2, 8).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("a", "train", kGpu);
  cluster.Submit("gang", "train", "a", 8 * kGpu, 3);
  Decisions d = Decide(cluster.Build());
  const Waiting* gang = FindWaiting(d, "gang");
  ASSERT_NE(gang, nullptr);
  EXPECT_EQ(gang->code, WaitCode::kExceedsLimit);
  EXPECT_EQ(gang->message,
            "this job needs 24 GPUs, more than the pool of queue train has (16 GPUs): it cannot "
            "start until the pool grows or it asks for fewer");
}

// A department's limit caps what its projects borrow together; the reason names the
// department.
TEST(Departments, LimitCapsTheDepartmentsOverQuotaUse) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 8).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddDepartment("research", "train", 2 * kGpu, 3 * kGpu);
  cluster.AddProject("a", "train", kGpu).InDepartment("a", "research");
  cluster.AddProject("b", "train", kGpu).InDepartment("b", "research");
  for (int i = 0; i < 3; ++i) cluster.Submit(Named("a-", i), "train", "a", kGpu);
  cluster.Submit("b-0", "train", "b", kGpu);
  Decisions d = Decide(cluster.Build());
  EXPECT_THAT(Admitted(d), UnorderedElementsAre("a-0", "a-1", "b-0"));
  const Waiting* waiting = FindWaiting(d, "a-2");
  ASSERT_NE(waiting, nullptr);
  EXPECT_EQ(waiting->code, WaitCode::kLimit);
  EXPECT_EQ(waiting->message,
            "department research is at its limit of 3 GPUs in queue train (its projects use 3 "
            "GPUs, this job of project a needs 1 GPU)");
  const DepartmentShare* share = FindDepartmentShare(d, "research", "train");
  ASSERT_NE(share, nullptr);
  EXPECT_EQ(share->quota, 2 * kGpu);
  EXPECT_EQ(share->allocated, 3 * kGpu);
  EXPECT_EQ(share->over_quota, kGpu);
  EXPECT_EQ(share->pending, kGpu);
}

// Reclaim takes back first from departments over their quota. Two projects are as
// far over their own quotas; only ops is over its department's quota.
TEST(Departments, ReclaimTakesFirstFromDepartmentsOverTheirQuota) {
  struct Case {
    const char* rule;
    int nodes;  // 1: both victims on one node; 2: each on its own node.
    bool departments;
    std::string victim_projects;  // Their first letters.
  };
  std::vector<Case> cases = {
      {"one node: the department over its quota gives", 1, true, "xy"},
      {"two nodes, one victim on either: the node of the department over its quota", 2, true, "xy"},
      {"two nodes without departments: the other one", 2, false, "a"},
      {"without departments: the other one", 1, false, "a"},
  };
  for (const Case& c : cases) {
    ClusterBuilder cluster;
    cluster.Nodes(c.nodes, 8 / c.nodes).AddQueue("train", Sharing::kGuaranteed);
    cluster.AddProject("a", "train", 2 * kGpu).AddProject("b", "train", 2 * kGpu);
    cluster.AddProject("x", "train", kGpu).AddProject("y", "train", kGpu);
    if (c.departments) {
      cluster.AddDepartment("research", "train", 6 * kGpu).AddDepartment("ops", "train", 2 * kGpu);
      cluster.InDepartment("a", "research").InDepartment("b", "research");
      cluster.InDepartment("x", "ops").InDepartment("y", "ops");
    }
    // a runs 4 (2 over), x runs 2 (1 over), y runs 2 (1 over): research uses 4 of
    // its 6, ops 4 of its 2. On two nodes, a's jobs fill node-0, x's and y's node-1.
    struct Held {
      const char* name;
      const char* project;
      Seconds start;
    };
    std::vector<Held> held = {{"a-0", "a", 0}, {"a-1", "a", 0}, {"a-2", "a", 0}, {"a-3", "a", 5},
                              {"x-0", "x", 0}, {"x-1", "x", 5}, {"y-0", "y", 0}, {"y-1", "y", 0}};
    int per_node = 8 / c.nodes;
    for (int i = 0; i < 8; ++i) {
      cluster.snapshot().running.push_back(Running(held[i].name, held[i].project,
                                                   Named("node-", i / per_node), i % per_node,
                                                   held[i].start));
    }
    cluster.Submit("b-0", "train", "b", kGpu);
    Decisions d = Decide(cluster.Build());
    ASSERT_EQ(d.preemptions.size(), 1u) << c.rule;
    EXPECT_NE(c.victim_projects.find(d.preemptions[0].victim[0]), std::string::npos)
        << c.rule << ": " << d.preemptions[0].victim;
  }
}

// A fixed quota scaled into the department's: the reason names the department.
TEST(Departments, ReasonNamesTheDepartmentThatScaledTheQuota) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 8).AddQueue("build", Sharing::kFixed);
  cluster.AddDepartment("research", "build", 2 * kGpu);
  cluster.AddProject("a", "build", 2 * kGpu).InDepartment("a", "research");
  cluster.AddProject("b", "build", 2 * kGpu).InDepartment("b", "research");
  cluster.Submit("a-0", "build", "a", kGpu, 1, WorkloadClass::kBuild);
  cluster.Submit("a-1", "build", "a", kGpu, 1, WorkloadClass::kBuild);
  Decisions d = Decide(cluster.Build());
  EXPECT_THAT(Admitted(d), ElementsAre("a-0"));
  EXPECT_EQ(FindWaiting(d, "a-1")->message,
            "project a is at its fixed quota of 1 GPU (department research's quota of 2 GPUs "
            "scales its 2 GPUs down) in queue build (uses 1 GPU, this job needs 1 GPU)");
}

// A department that no project names changes nothing: the same decisions.
TEST(Departments, WithoutMembersNothingChanges) {
  ClusterBuilder cluster;
  cluster.Nodes(2, 8).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("a", "train", 2 * kGpu).AddProject("b", "train", 6 * kGpu, 0, 8 * kGpu);
  for (int i = 0; i < 8; ++i)
    cluster.snapshot().running.push_back(Running(Named("a-r", i), "a", "node-0", i));
  for (int i = 0; i < 12; ++i) cluster.Submit(Named("b-", i), "train", "b", kGpu);
  for (int i = 0; i < 3; ++i) cluster.Submit(Named("a-", i), "train", "a", 2 * kGpu);
  Snapshot plain = cluster.Build();
  cluster.AddDepartment("unused", "train", kGpu, kGpu, 5);
  Decisions without = Decide(plain);
  Decisions with = Decide(cluster.Build());
  EXPECT_EQ(Admitted(with), Admitted(without));
  EXPECT_EQ(Victims(with), Victims(without));
  ASSERT_EQ(with.waiting.size(), without.waiting.size());
  for (std::size_t i = 0; i < with.waiting.size(); ++i) {
    EXPECT_EQ(with.waiting[i].message, without.waiting[i].message);
  }
}

// Following a live cluster: a department created, changed and removed.
TEST(Departments, EngineFollowsDepartmentChanges) {
  ClusterBuilder cluster;
  cluster.Nodes(1, 8).AddQueue("train", Sharing::kGuaranteed);
  cluster.AddProject("a", "train", 4 * kGpu).InDepartment("a", "research");
  Engine engine(cluster.Build(), Incremental());
  EXPECT_EQ(FindShare(engine.Decide(), "a", "train")->quota, 4 * kGpu);  // No such department.
  engine.UpsertDepartment({"research", {{"train", 3 * kGpu, -1, 1}}});
  EXPECT_EQ(FindShare(engine.Decide(), "a", "train")->quota, 3 * kGpu);
  engine.UpsertDepartment({"research", {{"train", kGpu, -1, 1}}});
  Decisions d = engine.Decide();
  EXPECT_EQ(FindShare(d, "a", "train")->quota, kGpu);
  EXPECT_EQ(FindDepartmentShare(d, "research", "train")->quota, kGpu);
  EXPECT_TRUE(engine.RemoveDepartment("research"));
  d = engine.Decide();
  EXPECT_EQ(FindShare(d, "a", "train")->quota, 4 * kGpu);
  EXPECT_TRUE(d.department_shares.empty());
  EXPECT_FALSE(engine.RemoveDepartment("research"));
  // The project as given survives the round trip.
  EXPECT_EQ(engine.ToSnapshot().projects[0].department, "research");
  EXPECT_EQ(engine.ToSnapshot().projects[0].quotas[0].gpu, 4 * kGpu);
}

}  // namespace
}  // namespace gpupool::engine::testing
