// A cycle's budget of status writes that neither admit nor free anything.
#include <gtest/gtest.h>

#include "gpupool/operator/plan.h"
#include "gpupool/operator/pod_view.h"

namespace gpupool::op {
namespace {

StatusWrite Status(Kind kind, const std::string& name) {
  return {kind, kind == Kind::kTrainingJob ? "team" : "", name, Json::object()};
}

EventNote Note(Kind kind, const std::string& name) {
  EventNote note;
  note.kind = kind;
  note.ns = kind == Kind::kTrainingJob ? "team" : "";
  note.name = name;
  note.reason = "Capacity";
  return note;
}

std::vector<std::string> Names(const std::vector<StatusWrite>& writes) {
  std::vector<std::string> names;
  for (const auto& write : writes) names.push_back(write.name);
  return names;
}

Plan Busy() {
  Plan plan;
  plan.other_statuses = {Status(Kind::kTrainingJob, "a"), Status(Kind::kTrainingJob, "b"),
                         Status(Kind::kTrainingJob, "c"), Status(Kind::kProject, "ml"),
                         Status(Kind::kQueue, "train")};
  plan.admission_statuses = {Status(Kind::kTrainingJob, "admitted")};
  plan.events = {Note(Kind::kTrainingJob, "a"), Note(Kind::kTrainingJob, "c"),
                 Note(Kind::kTrainingJob, "admitted"), Note(Kind::kTrainingJob, "c")};
  return plan;
}

Plan BusyAdmittingNone() {
  Plan plan = Busy();
  plan.admission_statuses.clear();
  return plan;
}

std::vector<std::string> Noted(const Plan& plan) {
  std::vector<std::string> names;
  for (const auto& note : plan.events) names.push_back(note.name);
  return names;
}

TEST(DeferStatusWrites, KeepsEveryUsageStatusAndAWindowOfJobsAndDropsTheRestsEvents) {
  Plan plan = BusyAdmittingNone();
  std::size_t turn = 0;
  EXPECT_EQ(DeferStatusWrites(plan, 1, turn), 2u);
  EXPECT_EQ(turn, 1u);
  EXPECT_EQ(Names(plan.other_statuses), (std::vector<std::string>{"ml", "train", "a"}));
  EXPECT_EQ(Noted(plan), (std::vector<std::string>{"a", "admitted"}));
}

// A cycle that admits jobs may write as many more: their Running statuses
// follow in a later cycle, and must keep pace under a steady load.
TEST(DeferStatusWrites, EveryJobAdmittedAddsOneToTheBudget) {
  Plan plan = Busy();
  std::size_t turn = 0;
  EXPECT_EQ(DeferStatusWrites(plan, 1, turn), 1u);
  EXPECT_EQ(turn, 2u);
  EXPECT_EQ(Names(plan.other_statuses), (std::vector<std::string>{"ml", "train", "a", "b"}));
  EXPECT_EQ(Names(plan.admission_statuses), std::vector<std::string>{"admitted"});
}

// Each turn starts further in and wraps around: over the cycles every job's
// status is written, however long the backlog.
TEST(DeferStatusWrites, TheWindowMovesWithTheTurnAndWrapsAround) {
  Plan plan = BusyAdmittingNone();
  std::size_t turn = 2;
  EXPECT_EQ(DeferStatusWrites(plan, 2, turn), 1u);
  EXPECT_EQ(turn, 4u);
  EXPECT_EQ(Names(plan.other_statuses), (std::vector<std::string>{"ml", "train", "c", "a"}));
  EXPECT_EQ(Noted(plan), (std::vector<std::string>{"a", "c", "admitted", "c"}));
  plan = BusyAdmittingNone();
  EXPECT_EQ(DeferStatusWrites(plan, 2, turn), 1u);
  EXPECT_EQ(Names(plan.other_statuses), (std::vector<std::string>{"ml", "train", "b", "c"}));
  EXPECT_EQ(Noted(plan), (std::vector<std::string>{"c", "admitted", "c"}));
}

// A backlog (a burst's Running statuses, once the admissions have stopped)
// drains: each cycle writes an eighth of it on top of the budget.
TEST(DeferStatusWrites, AnEighthOfABacklogGoesOnTopOfTheBudget) {
  Plan plan;
  for (int i = 0; i < 80; ++i)
    plan.other_statuses.push_back(Status(Kind::kTrainingJob, "job-" + std::to_string(i)));
  std::size_t turn = 0;
  EXPECT_EQ(DeferStatusWrites(plan, 2, turn), 68u);
  EXPECT_EQ(plan.other_statuses.size(), 12u);
  EXPECT_EQ(turn, 12u);
}

TEST(DeferStatusWrites, KeepsEverythingWithinTheBudgetOrWithoutOne) {
  for (std::size_t per_cycle : {0u, 2u, 100u}) {
    Plan plan = Busy();
    std::size_t turn = 7;
    EXPECT_EQ(DeferStatusWrites(plan, per_cycle, turn), 0u) << per_cycle;
    EXPECT_EQ(plan.other_statuses.size(), 5u);
    EXPECT_EQ(plan.events.size(), 4u);
  }
}

// A cycle's budget of gated pod creates: released pods are never left out.
PodCreate Create(const std::string& job, const Json& gates) {
  PodCreate create;
  create.job_key = "team/" + job;
  create.pod = {{"metadata", {{"name", job}}}, {"spec", {{"schedulingGates", gates}}}};
  return create;
}

const Json kAdmissionGated = Json::array({{{"name", kAdmissionGate}}});

std::vector<std::string> Created(const Plan& plan) {
  std::vector<std::string> names;
  for (const auto& create : plan.pod_creates) names.push_back(create.pod["metadata"]["name"]);
  return names;
}

TEST(DeferGatedPodCreates, KeepsTheFirstGatedOnesAndEveryReleasedOne) {
  Plan plan;
  plan.pod_creates = {Create("w1", kAdmissionGated), Create("r1", Json::array()),
                      Create("w2", kAdmissionGated), Create("w3", kAdmissionGated),
                      Create("own-gate", Json::array({{{"name", "example.com/quota"}}}))};
  EXPECT_EQ(DeferGatedPodCreates(plan, 2), 1u);
  EXPECT_EQ(Created(plan), (std::vector<std::string>{"w1", "r1", "w2", "own-gate"}))
      << "a template's own gate does not make a released pod gated";
}

TEST(DeferGatedPodCreates, KeepsEverythingWithinTheBudgetOrWithoutOne) {
  for (std::size_t per_cycle : {0u, 2u, 100u}) {
    Plan plan;
    plan.pod_creates = {Create("w1", kAdmissionGated), Create("w2", kAdmissionGated),
                        Create("r1", Json::array())};
    EXPECT_EQ(DeferGatedPodCreates(plan, per_cycle), 0u) << per_cycle;
    EXPECT_EQ(plan.pod_creates.size(), 3u);
  }
}

}  // namespace
}  // namespace gpupool::op
