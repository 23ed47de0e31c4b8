// A cycle's budget of status writes that neither admit nor free anything, and
// of gated pod creates.
#include <gtest/gtest.h>

#include "gpupool/operator/plan.h"
#include "gpupool/operator/pod_view.h"
#include "view_builder.h"

namespace gpupool::op {
namespace {

// Three jobs in a namespace no Project owns: each cycle's first look gives
// each a NoProject status (a write that neither admits nor frees anything) and
// a Warning Event; with `admit`, one job the cycle admits besides.
ClusterView Busy(bool admit = true) {
  testing::ViewBuilder b;
  b.Node("node-0", 8, "train").Queue("train", "train").Project("ml", "team", 8);
  for (const char* name : {"a", "b", "c"}) b.Job("nowhere", name, 1, 1);
  if (admit) b.Job("team", "admitted", 1, 1);
  return b.view();
}

Plan PlanWithin(const ClusterView& view, std::size_t per_cycle, std::size_t turn) {
  PlanOptions options;
  options.status_writes_per_cycle = per_cycle;
  options.status_turn = turn;
  return PlanCycle(view, options);
}

// The jobs among the other statuses, in order; Project and Queue statuses as
// their kind.
std::vector<std::string> Others(const Plan& plan) {
  std::vector<std::string> names;
  for (const auto& write : plan.other_statuses)
    names.push_back(write.kind == Kind::kTrainingJob ? write.name
                    : write.kind == Kind::kProject   ? "project"
                                                     : "queue");
  return names;
}

std::vector<std::string> Noted(const Plan& plan) {
  std::vector<std::string> names;
  for (const auto& note : plan.events)
    if (note.kind == Kind::kTrainingJob) names.push_back(note.name);
  return names;
}

TEST(StatusBudget, KeepsEveryUsageStatusAndAWindowOfJobsAndDropsTheRestsEvents) {
  const Plan plan = PlanWithin(Busy(false), 1, 0);
  EXPECT_EQ(plan.deferred_statuses, 2u);
  EXPECT_EQ(plan.next_status_turn, 1u);
  EXPECT_EQ(Others(plan), (std::vector<std::string>{"a", "queue", "project"}));
  EXPECT_EQ(Noted(plan), std::vector<std::string>{"a"});
}

// A cycle that admits jobs may write as many more: their Running statuses
// follow in a later cycle, and must keep pace under a steady load.
TEST(StatusBudget, EveryJobAdmittedAddsOneToTheBudget) {
  const Plan plan = PlanWithin(Busy(), 1, 0);
  EXPECT_EQ(plan.deferred_statuses, 1u);
  EXPECT_EQ(plan.next_status_turn, 2u);
  EXPECT_EQ(Others(plan), (std::vector<std::string>{"a", "b", "queue", "project"}));
  ASSERT_EQ(plan.admission_statuses.size(), 1u);
  EXPECT_EQ(plan.admission_statuses[0].name, "admitted");
  EXPECT_EQ(Noted(plan), (std::vector<std::string>{"admitted", "a", "b"}));
}

// Each turn starts further in and wraps around: over the cycles every job's
// status is written, however long the backlog.
TEST(StatusBudget, TheWindowMovesWithTheTurnAndWrapsAround) {
  const ClusterView view = Busy(false);
  Plan plan = PlanWithin(view, 2, 2);
  EXPECT_EQ(plan.deferred_statuses, 1u);
  EXPECT_EQ(plan.next_status_turn, 4u);
  EXPECT_EQ(Others(plan), (std::vector<std::string>{"c", "a", "queue", "project"}));
  EXPECT_EQ(Noted(plan), (std::vector<std::string>{"a", "c"}));
  plan = PlanWithin(view, 2, plan.next_status_turn);
  EXPECT_EQ(plan.deferred_statuses, 1u);
  EXPECT_EQ(Others(plan), (std::vector<std::string>{"b", "c", "queue", "project"}));
  EXPECT_EQ(Noted(plan), (std::vector<std::string>{"b", "c"}));
}

// A backlog (a burst's Running statuses, once the admissions have stopped)
// drains: each cycle writes an eighth of it on top of the budget.
TEST(StatusBudget, AnEighthOfABacklogGoesOnTopOfTheBudget) {
  testing::ViewBuilder b;
  for (int i = 0; i < 80; ++i) b.Job("nowhere", "job-" + std::to_string(i), 1, 1);
  const Plan plan = PlanWithin(b.view(), 2, 0);
  EXPECT_EQ(plan.deferred_statuses, 68u);
  EXPECT_EQ(plan.other_statuses.size(), 12u);
  EXPECT_EQ(plan.next_status_turn, 12u);
  EXPECT_EQ(plan.events.size(), 12u);
}

TEST(StatusBudget, KeepsEverythingWithinTheBudgetOrWithoutOne) {
  for (std::size_t per_cycle : {0u, 2u, 100u}) {
    const Plan plan = PlanWithin(Busy(), per_cycle, 7);
    EXPECT_EQ(plan.deferred_statuses, 0u) << per_cycle;
    EXPECT_EQ(plan.next_status_turn, per_cycle == 0 ? 7u : 7u + per_cycle + 1) << per_cycle;
    EXPECT_EQ(plan.other_statuses.size(), 5u) << per_cycle;
    EXPECT_EQ(Noted(plan).size(), 4u) << per_cycle;
  }
}

// A cycle's budget of gated pods: three waiting jobs with no room (the node's
// GPUs held by a running job) and one admitted, whose pods are created released.
ClusterView NoRoomForThree() {
  testing::ViewBuilder b;
  b.Node("node-0", 2, "train").Queue("train", "train").Project("ml", "team", 4);
  b.Job("team", "runs", 1, 1,
        testing::HoldingStatus("Running", "node-0", {0}, testing::kNow - 100, "team"));
  b.JobPod("team", "runs", 0, "node-0", "Running", false);
  b.Job("team", "admitted", 1, 1);
  for (const char* name : {"w1", "w2", "w3"}) b.Job("team", name, 1, 1);
  return b.view();
}

std::vector<std::string> Created(const Plan& plan) {
  std::vector<std::string> names;
  for (const auto& create : plan.pod_creates) names.push_back(create.name);
  return names;
}

TEST(GatedPodsPerCycle, PlansTheFirstGatedOnesAndEveryReleasedOne) {
  PlanOptions options;
  options.gated_pods_per_cycle = 2;
  const Plan plan = PlanCycle(NoRoomForThree(), options);
  EXPECT_EQ(Created(plan), (std::vector<std::string>{"admitted-0", "w1-0", "w2-0"}));
  EXPECT_EQ(plan.deferred_gated_pods, 1u);
}

TEST(GatedPodsPerCycle, PlansEverythingWithinTheBudgetOrWithoutOne) {
  for (std::size_t per_cycle : {0u, 3u, 100u}) {
    PlanOptions options;
    options.gated_pods_per_cycle = per_cycle;
    const Plan plan = PlanCycle(NoRoomForThree(), options);
    EXPECT_EQ(plan.pod_creates.size(), 4u) << per_cycle;
    EXPECT_EQ(plan.deferred_gated_pods, 0u) << per_cycle;
  }
}

}  // namespace
}  // namespace gpupool::op
