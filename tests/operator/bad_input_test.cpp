// Hostile and mistaken input through the API: what the server refuses is
// refused naming the field; what it accepts but gpupool cannot honour ends with
// a condition and an Event saying why, and nothing else happens to it. A valid
// job submitted afterwards still runs.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "cluster_harness.h"

namespace gpupool::op::testing {
namespace {

constexpr char kSetup[] = R"(
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: v1
kind: Namespace
metadata: {name: stray}
---
apiVersion: gpupool.dev/v1alpha1
kind: Project
metadata: {name: team}
spec: {namespaces: [team], quotas: [{queue: train, gpu: 2, limit: 6}, {queue: build, gpu: 1}]}
)";

std::string Job(const std::string& name, const std::string& spec,
                const std::string& container = "{name: main, image: trainer}",
                const std::string& ns = "team") {
  return "apiVersion: gpupool.dev/v1alpha1\nkind: TrainingJob\nmetadata: {name: " + name +
         ", namespace: " + ns + "}\nspec:\n" + spec + "  template: {spec: {containers: [" +
         container + "]}}\n";
}

struct Refused {
  std::string yaml, field;
};

// Objects the API server itself refuses, each naming its field.
const std::vector<Refused>& RefusedByServer() {
  static const std::vector<Refused> cases = {
      {Job("fraction-gang", "  queue: train\n  replicas: 2\n  gpusPerReplica: \"0.5\"\n"),
       "spec.gpusPerReplica"},
      {Job("min-above", "  queue: train\n  replicas: 2\n  minReplicas: 3\n  gpusPerReplica: 1\n"),
       "spec.minReplicas"},
      {Job("zero-gpus", "  queue: train\n  gpusPerReplica: 0\n"), "spec.gpusPerReplica"},
      {Job("bad-class", "  queue: train\n  workloadClass: Batch\n  gpusPerReplica: 1\n"),
       "spec.workloadClass"},
      {Job("no-queue", "  gpusPerReplica: 1\n"), "spec.queue"},
      {Job("one-and-half", "  queue: train\n  gpusPerReplica: \"1.5\"\n"), "spec.gpusPerReplica"},
      {Job("too-many-gpus", "  queue: train\n  gpusPerReplica: 65\n"), "spec.gpusPerReplica"},
      // Its Service and pod subdomain need an RFC 1035 label.
      {Job("bert.large", "  queue: train\n  replicas: 2\n  gpusPerReplica: 1\n"), "metadata.name"},
      {"apiVersion: gpupool.dev/v1alpha1\nkind: Project\nmetadata: {name: negative}\nspec: "
       "{namespaces: [x], quotas: [{queue: train, gpu: \"-1\"}]}\n",
       "spec.quotas[0].gpu"},
      {"apiVersion: gpupool.dev/v1alpha1\nkind: Queue\nmetadata: {name: odd}\nspec: {sharing: "
       "Sometimes}\n",
       "spec.sharing"},
  };
  return cases;
}

struct Flagged {
  std::string yaml, kind, name, reason;  // The condition gpupool sets on it.
};

// Objects the server accepts and gpupool cannot honour.
const std::vector<Flagged>& FlaggedByController() {
  static const std::vector<Flagged> cases = {
      {Job("unknown-queue", "  queue: nope\n  gpusPerReplica: 1\n"), "tj", "unknown-queue",
       "UnknownQueue"},
      {Job("orphan", "  queue: train\n  gpusPerReplica: 1\n", "{name: main, image: trainer}",
           "stray"),
       "tj", "orphan", "NoProject"},
      // No API server can afford a CEL rule per quota (docs/api.md, "Validation rules").
      {"apiVersion: gpupool.dev/v1alpha1\nkind: Project\nmetadata: {name: under}\nspec: "
       "{namespaces: [under], quotas: [{queue: train, gpu: 4, limit: 2}]}\n",
       "project", "under", "InvalidSpec"},
      // A pod bound by its template would run where gpupool did not count it.
      {"apiVersion: gpupool.dev/v1alpha1\nkind: TrainingJob\nmetadata: {name: pinned, "
       "namespace: team}\nspec:\n  queue: train\n  gpusPerReplica: 1\n  template: {spec: "
       "{nodeName: node-0, containers: [{name: main, image: trainer}]}}\n",
       "tj", "pinned", "InvalidSpec"},
      // An init container holding GPUs would hold devices no one is charged for.
      {"apiVersion: gpupool.dev/v1alpha1\nkind: TrainingJob\nmetadata: {name: gpu-init, "
       "namespace: team}\nspec:\n  queue: train\n  gpusPerReplica: 1\n  template: {spec: "
       "{initContainers: [{name: warm, image: busybox, resources: {limits: {nvidia.com/gpu: "
       "4}}}], containers: [{name: main, image: trainer}]}}\n",
       "tj", "gpu-init", "InvalidSpec"},
      {Job("bigger-than-nodes", "  queue: train\n  gpusPerReplica: 16\n"), "tj",
       "bigger-than-nodes", "NoMatchingNodes"},
      {Job("gang-beyond-pool", "  queue: train\n  replicas: 3\n  gpusPerReplica: 8\n"), "tj",
       "gang-beyond-pool", ""},
      {Job("beyond-limit", "  queue: train\n  gpusPerReplica: 8\n"), "tj", "beyond-limit",
       "ExceedsLimit"},
      {Job("no-such-rack",
           "  queue: train\n  replicas: 2\n  gpusPerReplica: 1\n  topology: {key: rack, mode: "
           "Required}\n"),
       "tj", "no-such-rack", ""},
      {Job("no-image", "  queue: train\n  gpusPerReplica: 1\n", "{name: main}"), "tj", "no-image",
       "PodTemplateRejected"},
      // A real server's ServiceAccount admission forbids the pod: the job gives
      // its GPU back and waits a back-off, saying why.
      {"apiVersion: gpupool.dev/v1alpha1\nkind: TrainingJob\nmetadata: {name: ghost-account, "
       "namespace: team}\nspec:\n  queue: train\n  gpusPerReplica: 1\n  template: {spec: "
       "{serviceAccountName: ghost, containers: [{name: main, image: trainer}]}}\n",
       "tj", "ghost-account", "PodForbidden"},
      {Job("build-over-quota", "  queue: build\n  workloadClass: Build\n  gpusPerReplica: 2\n"),
       "tj", "build-over-quota", "Quota"},
      {Job("inference-over-quota",
           "  queue: train\n  workloadClass: Inference\n  gpusPerReplica: 4\n"),
       "tj", "inference-over-quota", "Quota"},
      {"apiVersion: gpupool.dev/v1alpha1\nkind: Project\nmetadata: {name: greedy}\nspec: "
       "{namespaces: [greedy], quotas: [{queue: train, gpu: 20}]}\n",
       "project", "greedy", "QuotaExceedsCapacity"},
      {"apiVersion: gpupool.dev/v1alpha1\nkind: Project\nmetadata: {name: lost}\nspec: "
       "{namespaces: [lost], quotas: [{queue: gpu-farm, gpu: 1}]}\n",
       "project", "lost", "UnknownQueue"},
      {"apiVersion: gpupool.dev/v1alpha1\nkind: Project\nmetadata: {name: zz-twin}\nspec: "
       "{namespaces: [team], quotas: [{queue: train, gpu: 1}]}\n",
       "project", "zz-twin", "NamespaceConflict"},
  };
  return cases;
}

std::string ConditionOf(const Json& object, const std::string& type, const std::string& field) {
  for (const Json& condition :
       object.value("status", Json::object()).value("conditions", Json::array()))
    if (condition["type"] == type) return condition.value(field, "");
  return "";
}

class BadInputOnBackend : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { SKIP_WITHOUT_BACKEND(GetParam()); }
};

TEST_P(BadInputOnBackend, EveryBadObjectIsRefusedOrFlaggedAndAValidJobStillRuns) {
  ClusterHarness cluster("1x8:pool=train;1x2:pool=build", {}, {}, GetParam());
  cluster.Apply(kSetup);
  // Project zz-twin, below, claims team's namespace: team holds it first.
  ASSERT_EQ(cluster.Kubectl("wait --for=condition=Ready project/team --timeout=30s").exit_code, 0);
  for (const auto& refused : RefusedByServer()) {
    const std::string path = cluster.WriteFile("refused.yaml", refused.yaml);
    const CommandResult result = cluster.KubectlOnce("apply -f " + path);
    EXPECT_NE(result.exit_code, 0) << refused.yaml;
    EXPECT_NE(result.output.find(refused.field), std::string::npos) << result.output;
  }
  std::string all;
  for (const auto& flagged : FlaggedByController()) all += flagged.yaml + "---\n";
  cluster.Apply(all);
  cluster.Apply(TrainJobYaml("team", "valid", 900));
  ASSERT_TRUE(cluster.WaitFor(
      30, [](const Json& jobs) { return PhaseOf(jobs, "team", "valid") == "Running"; }))
      << cluster.Kubectl("get projects,trainingjobs -A -o wide").output
      << cluster.Kubectl("get trainingjob valid -n team -o yaml").output << cluster.ControllerLog();
  // Conditions that change nothing else are written a few per cycle: wait for all.
  const auto flagged_condition = [&](const Flagged& flagged, const std::string& field) {
    const bool job = flagged.kind == "tj";
    const std::string ns = flagged.name == "orphan" ? "stray" : "team";
    const auto result = cluster.Kubectl("get " + flagged.kind + " " + flagged.name +
                                        (job ? " -n " + ns : "") + " -o json");
    if (result.exit_code != 0) return std::string();
    return ConditionOf(Json::parse(result.output), job ? "Admitted" : "Ready", field);
  };
  EXPECT_TRUE(cluster.WaitFor(30, [&](const Json&) {
    for (const auto& flagged : FlaggedByController())
      if (flagged_condition(flagged, "status").empty()) return false;
    return true;
  }));
  for (const auto& flagged : FlaggedByController()) {
    const bool job = flagged.kind == "tj";
    const std::string ns = flagged.name == "orphan" ? "stray" : "team";
    const auto result = cluster.Kubectl("get " + flagged.kind + " " + flagged.name +
                                        (job ? " -n " + ns : "") + " -o json");
    ASSERT_EQ(result.exit_code, 0) << result.output;
    const Json object = Json::parse(result.output);
    const std::string type = job ? "Admitted" : "Ready";
    EXPECT_EQ(ConditionOf(object, type, "status"), "False") << flagged.name;
    if (!flagged.reason.empty()) {
      EXPECT_EQ(ConditionOf(object, type, "reason"), flagged.reason) << object["status"].dump();
    }
    EXPECT_FALSE(ConditionOf(object, type, "message").empty()) << flagged.name;
    if (job) {
      EXPECT_NE(object["status"].value("phase", ""), "Running") << flagged.name;
    }
  }
  // The server's words, each cause once, without the request they answered.
  const std::string refusal = flagged_condition({"", "tj", "no-image", ""}, "message");
  const auto first = refusal.find("spec.containers[0].image");
  ASSERT_NE(first, std::string::npos) << refusal;
  EXPECT_EQ(refusal.find("spec.containers[0].image", first + 1), std::string::npos) << refusal;
  EXPECT_EQ(refusal.find("HTTP 422"), std::string::npos) << refusal;
  // A job that waits for a person to act has no pods: none could start.
  for (const char* name : {"unknown-queue", "orphan", "pinned", "gpu-init", "bigger-than-nodes",
                           "beyond-limit", "no-image"}) {
    const auto pods =
        cluster.Kubectl(std::string("get pods -A -o name -l gpupool.dev/job=") + name);
    EXPECT_EQ(pods.exit_code, 0) << pods.output;
    EXPECT_EQ(pods.output.find("pod/"), std::string::npos) << name << ": " << pods.output;
  }
  const auto events = cluster.Kubectl("get events.events.k8s.io -A -o json");
  for (const char* reason :
       {"UnknownQueue", "NoProject", "InvalidSpec", "PodTemplateRejected", "PodForbidden",
        "QuotaExceedsCapacity", "NamespaceConflict", "ExceedsLimit"})
    EXPECT_NE(events.output.find(reason), std::string::npos) << reason;
  // A job its limit can never admit is a problem to fix, not a turn to wait.
  for (const Json& event : Json::parse(events.output)["items"]) {
    if (event.value("reason", "") == "ExceedsLimit") {
      EXPECT_EQ(event.value("type", ""), "Warning");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, BadInputOnBackend, ::testing::ValuesIn(backends::testing::Backends()),
                         [](const auto& info) {
                           return backends::testing::BackendTestName(info.param);
                         });

}  // namespace
}  // namespace gpupool::op::testing
