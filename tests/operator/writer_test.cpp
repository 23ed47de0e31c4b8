// The writer against a real `gpupool sandbox`. Its courtesies: gated pods of
// jobs the cycle does not admit, and job statuses that decide nothing, take
// only what the client's rate limit has to spare (docs/operator.md, "Order of
// writes"). And a job whose release could not be recorded keeps its pods.
#include "gpupool/operator/writer.h"

#include <gtest/gtest.h>

#include <sstream>

#include "gpupool/kube/config.h"
#include "gpupool/kube/event_recorder.h"
#include "sandbox_process.h"

namespace gpupool::op {
namespace {

using sandbox::testing::SandboxProcess;

PodCreate PodOf(const std::string& job, const std::string& name, bool gated) {
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec", {{"containers", {{{"name", "main"}, {"image", "x"}}}}}}};
  if (gated) pod["spec"]["schedulingGates"] = {{{"name", "gpupool.dev/admission"}}};
  PodCreate create;
  create.job_key = "default/" + job;
  create.ns = "default";
  create.name = name;
  create.body = pod.dump();
  create.gated = gated;
  return create;
}

// A writer whose client may send `burst` requests at once and, with `qps` 0.01,
// next to nothing after (qps 0: no limit), against a fresh sandbox.
class LimitedWriter {
 public:
  LimitedWriter(double qps, int burst, int concurrency)
      : client_(kube::LoadKubeconfig({sandbox_.kubeconfig()}), Limit(qps, burst)),
        events_(client_),
        writer_(client_, &events_, nullptr, concurrency) {}

  WriteStats Apply(const Plan& plan) { return writer_.Apply(plan); }
  const SandboxProcess& sandbox() const { return sandbox_; }
  // The reasons of the Events recorded so far about TrainingJobs, one per line.
  std::string JobEventReasons() {
    events_.Flush(std::chrono::seconds(10));
    std::istringstream lines(
        sandbox_
            .Kubectl("get events -n default -o custom-columns=:.involvedObject.kind,:.reason "
                     "--no-headers")
            .output);
    std::string kind, reason, reasons;
    while (lines >> kind >> reason)
      if (kind == "TrainingJob") reasons += reason + "\n";
    return reasons;
  }

 private:
  static kube::TransportOptions Limit(double qps, int burst) {
    kube::TransportOptions options;
    options.qps = qps;
    options.burst = burst;
    return options;
  }

  SandboxProcess sandbox_;
  kube::Client client_;
  kube::EventRecorder events_;
  PlanWriter writer_;
};

void AddPods(Plan& plan, const std::string& job, int count, bool gated) {
  for (int i = 0; i < count; ++i)
    plan.pod_creates.push_back(PodOf(job, job + "-" + std::to_string(i), gated));
}

StatusWrite StatusOf(Kind kind, const std::string& name) {
  StatusWrite write;
  write.kind = kind;
  write.ns = kind == Kind::kProject ? "" : "default";
  write.name = name;
  write.patch = {{"status", {{"phase", "Queued"}}}};
  write.courtesy = kind == Kind::kTrainingJob;
  return write;
}

// A burst of 4: the released pod goes first, whatever the order of the plan;
// then gated pods while half the burst is left; the others are counted, not
// written, and not failures.
TEST(CourtesyWrites, GatedPodsOfJobsNotAdmittedWaitForTheClientsSpareCapacity) {
  LimitedWriter writer(0.01, 4, 1);
  Plan plan;
  AddPods(plan, "waiting", 5, true);
  AddPods(plan, "admitted-earlier", 1, false);
  const WriteStats stats = writer.Apply(plan);
  EXPECT_EQ(stats.attempted, 3u);
  EXPECT_EQ(stats.failed, 0u);
  EXPECT_EQ(stats.pods_left_for_limit, 3u);
  const auto listed = writer.sandbox().Kubectl("get pods -n default -o name");
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_EQ(listed.output, "pod/admitted-earlier-0\npod/waiting-0\npod/waiting-1\n");
}

// Three released pods leave a quarter of a burst of 4: a job's waiting status
// is left for later; a Project's status is written all the same (the API
// answers NotFound here: the sandbox has no CRDs, and the attempt is what counts).
TEST(CourtesyWrites, AJobsStatusThatDecidesNothingWaitsForSpareCapacityAProjectsDoesNot) {
  LimitedWriter writer(0.01, 4, 1);
  Plan plan;
  AddPods(plan, "admitted-earlier", 3, false);
  plan.other_statuses = {StatusOf(Kind::kTrainingJob, "waits"), StatusOf(Kind::kProject, "ml")};
  const WriteStats stats = writer.Apply(plan);
  EXPECT_EQ(stats.attempted, 4u);
  EXPECT_EQ(stats.statuses_left_for_limit, 1u);
  EXPECT_EQ(stats.pods_left_for_limit, 0u);
}

// Without a client-side limit every courtesy is written.
TEST(CourtesyWrites, AnUnlimitedClientWritesEveryGatedPod) {
  LimitedWriter writer(0, 1, 2);
  Plan plan;
  AddPods(plan, "waiting", 5, true);
  const WriteStats stats = writer.Apply(plan);
  EXPECT_EQ(stats.attempted, 5u);
  EXPECT_EQ(stats.pods_left_for_limit, 0u);
}

// A release the writer could not record (here the API answers NotFound: the
// sandbox has no CRDs) leaves that job's pods where they are, and its Events
// unsent: the next cycle decides again from what the API holds, instead of
// finding its pods gone and calling them lost. Other pods go as planned, and
// so do a victim's: a tenant who keeps changing their job, so that every
// status write about it conflicts, cannot hold off a reclaim.
TEST(ReleaseWrites, AJobWhoseReleaseWasNotRecordedKeepsItsPodsAndEvents) {
  LimitedWriter writer(0, 1, 1);
  Plan setup;
  AddPods(setup, "suspended", 1, false);
  AddPods(setup, "ended", 1, false);
  AddPods(setup, "victim", 1, false);
  ASSERT_EQ(writer.Apply(setup).failed, 0u);
  const auto uid = [&](const std::string& pod) {
    return writer.sandbox().Kubectl("get pod " + pod + " -o jsonpath={.metadata.uid}").output;
  };
  Plan plan;
  plan.releasing_statuses = {StatusOf(Kind::kTrainingJob, "suspended"),
                             StatusOf(Kind::kTrainingJob, "victim")};
  plan.pod_deletes = {{"default", "suspended-0", uid("suspended-0"), 0, false, "default/suspended"},
                      {"default", "ended-0", uid("ended-0"), 0, false, ""},
                      {"default", "victim-0", uid("victim-0"), 0, true, "default/victim"}};
  plan.events = {
      {Kind::kTrainingJob, "default", "suspended", "uid-s", "Normal", "Suspended", "Suspend",
       "suspended"},
      {Kind::kTrainingJob, "default", "ended", "uid-e", "Normal", "Succeeded", "Finish", "ended"}};
  const WriteStats stats = writer.Apply(plan);
  EXPECT_EQ(stats.failed, 2u);
  const auto listed = writer.sandbox().Kubectl("get pods -n default -o name");
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_EQ(listed.output, "pod/suspended-0\n");
  EXPECT_EQ(writer.JobEventReasons(), "Succeeded\n");
}

}  // namespace
}  // namespace gpupool::op
