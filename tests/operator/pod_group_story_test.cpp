// Pods of other owners scheduled by a real controller, on every backend
// (docs/workloads.md), created with the label alone and gated by the
// controller's webhook, which the API server calls: Susan's pods (a gang of two
// and a notebook) run over her quota, an unlabelled pod of hers runs untouched
// and is counted, pods naming no queue that exists, in a namespace no Project
// owns, or of a gang that never fills wait saying why, a bad gang size is
// refused at creation, and Joe's pod takes back his guarantee: Susan's
// over-quota pods are evicted, every GPU accounted. Then the same with batch/v1
// Jobs on a real server, whose Job controller makes the pods.
#include <gtest/gtest.h>

#include <map>

#include "cluster_harness.h"
#include "gpupool/operator/pod_view.h"

namespace gpupool::op::testing {
namespace {

class PodGroupsOnBackend : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { SKIP_WITHOUT_BACKEND(GetParam()); }
};

constexpr char kUnlabelled[] = R"(---
apiVersion: v1
kind: Pod
metadata:
  name: plain
  namespace: susan
  annotations: {sandbox.gpupool.dev/run-seconds: "100000"}
spec:
  nodeSelector: {pool: train}
  containers:
  - name: main
    image: cuda
    resources: {limits: {nvidia.com/gpu: "1"}}
)";

const Json* PodNamed(const Json& pods, const std::string& name) {
  for (const Json& pod : pods)
    if (pod["metadata"].value("name", "") == name) return &pod;
  return nullptr;
}

std::string PhaseOfPod(const Json& pods, const std::string& name) {
  const Json* pod = PodNamed(pods, name);
  return pod ? pod->value("status", Json::object()).value("phase", "") : "";
}

// The reason of gpupool's condition on pod `name` ("" when it has none).
std::string AdmittedReason(const Json& pods, const std::string& name) {
  const Json* pod = PodNamed(pods, name);
  if (!pod) return "";
  for (const Json& condition :
       pod->value("status", Json::object()).value("conditions", Json::array()))
    if (condition.value("type", "") == kAdmittedCondition) return condition.value("reason", "");
  return "";
}

// Bad input the webhook cannot see: a namespace no Project owns, a gang that never fills.
constexpr char kNobody[] = R"(---
apiVersion: v1
kind: Namespace
metadata: {name: nobody}
)";

TEST_P(PodGroupsOnBackend, LabelledPodsRunOverQuotaAndTheOwnerOfTheQuotaTakesItBack) {
  ClusterHarness cluster(kStoryNodes, {}, {}, GetParam(), /*start_controller=*/false);
  cluster.StartControllerServingWebhook();
  cluster.Apply(std::string(kStory1Projects) + kNobody);
  const std::string gang = ", gpupool.dev/pod-group: ddp, gpupool.dev/pod-group-size: \"2\"";
  const std::string half = ", gpupool.dev/pod-group: half, gpupool.dev/pod-group-size: \"2\"";
  cluster.Apply(LabelledPodYaml("susan", "ddp-0", 2, "train", gang) +
                LabelledPodYaml("susan", "ddp-1", 2, "train", gang) +
                LabelledPodYaml("susan", "notebook", 2, "train") + kUnlabelled +
                LabelledPodYaml("susan", "lost", 1, "no-such-queue") +
                LabelledPodYaml("susan", "half-0", 1, "train", half) +
                LabelledPodYaml("nobody", "orphan", 1, "train"));
  const auto susan_runs = [&](const Json&) {
    const Json pods = cluster.Get("pods -n susan");
    return PhaseOfPod(pods, "ddp-0") == "Running" && PhaseOfPod(pods, "ddp-1") == "Running" &&
           PhaseOfPod(pods, "notebook") == "Running" && PhaseOfPod(pods, "plain") == "Running" &&
           AdmittedReason(pods, "lost") == "UnknownQueue" &&
           AdmittedReason(pods, "half-0") == "WaitingForPods" &&
           AdmittedReason(cluster.Get("pods -n nobody"), "orphan") == "NoProject";
  };
  ASSERT_TRUE(cluster.WaitFor(40, susan_runs))
      << cluster.Kubectl("get pods -A -o wide").output << cluster.ControllerLog();
  Json pods = cluster.Get("pods -n susan");
  EXPECT_EQ(AdmittedReason(pods, "ddp-0"), "AdmittedOverQuota");
  EXPECT_EQ(AdmittedReason(pods, "plain"), "") << "an unlabelled pod is never touched";
  for (const char* waiting : {"lost", "half-0"}) EXPECT_EQ(PhaseOfPod(pods, waiting), "Pending");
  EXPECT_NE(cluster.Kubectl("get events -n susan").output.find("UnknownQueue"), std::string::npos);
  // `gpupool list` shows them as workloads, as the pods say.
  const auto listed = sandbox::testing::RunCommand(std::string(GPUPOOL_BINARY) +
                                                   " list -n susan -o json --kubeconfig " +
                                                   cluster.kubeconfig() + " 2>/dev/null");
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  std::map<std::string, std::string> phases;
  for (const Json& row : Json::parse(listed.output)) phases[row["name"]] = row["phase"];
  EXPECT_EQ(phases["group/ddp"], "Running") << listed.output;
  EXPECT_EQ(phases["pod/notebook"], "Running") << listed.output;
  EXPECT_EQ(phases["pod/lost"], "Queued") << listed.output;
  EXPECT_EQ(phases.count("pod/plain"), 0u) << "the unlabelled pod is not gpupool's";
  const auto refused = cluster.KubectlOnce(
      "create -f " +
      cluster.WriteFile("bad-size.yaml", LabelledPodYaml("susan", "bad", 1, "train",
                                                         ", gpupool.dev/pod-group: g, "
                                                         "gpupool.dev/pod-group-size: many")));
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("metadata.labels[gpupool.dev/pod-group-size]"), std::string::npos)
      << refused.output;

  // 8 GPUs: Susan's 6 labelled and 1 unlabelled, 1 free; Joe asks for his 2.
  cluster.Apply(LabelledPodYaml("joe", "joe-notebook", 2, "train"));
  ASSERT_TRUE(cluster.WaitFor(60,
                              [&](const Json&) {
                                return PhaseOfPod(cluster.Get("pods -n joe"), "joe-notebook") ==
                                       "Running";
                              }))
      << cluster.Kubectl("get pods -A -o wide").output << cluster.ControllerLog();
  pods = cluster.Get("pods -n susan");
  EXPECT_EQ(PhaseOfPod(pods, "plain"), "Running");
  const bool gang_left = PodNamed(pods, "ddp-0") && PodNamed(pods, "ddp-1");
  EXPECT_TRUE(!gang_left || !PodNamed(pods, "notebook"))
      << "one of Susan's over-quota workloads is evicted: "
      << cluster.Kubectl("get pods -A").output;
  EXPECT_EQ(cluster.CheckDevices(), "");
}

int CountPods(const Json& pods, const std::string& phase) {
  int count = 0;
  for (const Json& pod : pods) {
    const bool gone = pod["metadata"].contains("deletionTimestamp");
    if (!gone && pod.value("status", Json::object()).value("phase", "") == phase) ++count;
  }
  return count;
}

// batch/v1 Jobs of Susan's, their pods made by the real server's Job
// controller: one pod within her quota, then a Job whose template names a pod
// group, whose pods run over quota as one gang. Joe's Job takes his guarantee
// back, and the pods evicted for it do not fail Susan's Jobs (their
// podFailurePolicy ignores disruptions): the Job controller makes new pods,
// which wait gated in the queue.
TEST_P(PodGroupsOnBackend, AJobsEvictedPodsComeBackGatedWithoutFailingIt) {
  if (GetParam() == "sandbox") GTEST_SKIP() << "the sandbox runs no Job controller";
  ClusterHarness cluster(kStoryNodes, {}, {}, GetParam(), /*start_controller=*/false);
  cluster.StartControllerServingWebhook();
  cluster.Apply(kStory1Projects + LabelledBatchJobYaml("susan", "base", 2, 1));
  ASSERT_TRUE(cluster.WaitFor(
      40, [&](const Json&) { return CountPods(cluster.Get("pods -n susan"), "Running") == 1; }))
      << cluster.Kubectl("get pods -A -o wide").output << cluster.ControllerLog();
  cluster.Apply(LabelledBatchJobYaml(
      "susan", "sweep", 3, 2, ", gpupool.dev/pod-group: sweep, gpupool.dev/pod-group-size: \"2\""));
  ASSERT_TRUE(cluster.WaitFor(
      40, [&](const Json&) { return CountPods(cluster.Get("pods -n susan"), "Running") == 3; }))
      << cluster.Kubectl("get pods -A -o wide").output << cluster.ControllerLog();

  // 8 GPUs, all Susan's, the gang's 6 over her quota of 2: Joe's 2 take his guarantee back.
  cluster.Apply(LabelledBatchJobYaml("joe", "bert", 2, 1));
  ASSERT_TRUE(cluster.WaitFor(
      60, [&](const Json&) { return CountPods(cluster.Get("pods -n joe"), "Running") == 1; }))
      << cluster.Kubectl("get pods -A -o wide").output << cluster.ControllerLog();
  ASSERT_TRUE(cluster.WaitFor(30, [&](const Json&) {
    const Json pods = cluster.Get("pods -n susan");
    const int pending = CountPods(pods, "Pending");
    return pending >= 1 && pending + CountPods(pods, "Running") == 3;
  })) << cluster.Kubectl("get pods -A -o wide").output;
  const auto on_jobs =
      cluster.Kubectl("get events -n susan --field-selector involvedObject.kind=Job");
  EXPECT_NE(on_jobs.output.find("Admitted"), std::string::npos) << on_jobs.output;
  EXPECT_NE(on_jobs.output.find("Preempted"), std::string::npos) << on_jobs.output;
  for (const Json& job : cluster.Get("jobs -n susan")) {
    for (const Json& condition :
         job.value("status", Json::object()).value("conditions", Json::array()))
      EXPECT_NE(condition.value("type", ""), "Failed") << job.dump();
    EXPECT_EQ(job["status"].value("failed", 0), 0) << "disruptions are not failures";
  }
  EXPECT_EQ(cluster.CheckDevices(), "");
}

// An Indexed Job of 4 pods of 8 GPUs, its template naming no group: one gang,
// sized by the Job. With one of the 32 GPUs taken it waits whole; once that
// GPU is free it starts whole.
TEST_P(PodGroupsOnBackend, AnIndexedJobOfFourByEightStartsWholeOrWaitsWhole) {
  if (GetParam() == "sandbox") GTEST_SKIP() << "the sandbox runs no Job controller";
  ClusterHarness cluster("4x8:pool=train,gpu=A100,rack=r1", {}, {}, GetParam(),
                         /*start_controller=*/false);
  cluster.StartControllerServingWebhook();
  cluster.Apply(kStory1Projects + LabelledPodYaml("joe", "holder", 1));
  ASSERT_TRUE(cluster.WaitFor(
      40, [&](const Json&) { return CountPods(cluster.Get("pods -n joe"), "Running") == 1; }))
      << cluster.Kubectl("get pods -A -o wide").output << cluster.ControllerLog();
  std::string indexed = LabelledBatchJobYaml("susan", "ddp", 8, 4);
  indexed.replace(indexed.find("  completions:"), 0, "  completionMode: Indexed\n");
  cluster.Apply(indexed);
  const auto all_waiting = [&](const Json&) {
    const Json pods = cluster.Get("pods -n susan");
    int told = 0;
    for (const Json& pod : pods)
      for (const Json& condition :
           pod.value("status", Json::object()).value("conditions", Json::array()))
        told += condition.value("type", "") == "gpupool.dev/Admitted" &&
                condition.value("status", "") == "False";
    return pods.size() == 4 && told == 4;
  };
  ASSERT_TRUE(cluster.WaitFor(40, all_waiting))
      << cluster.Kubectl("get pods -A -o wide").output << cluster.ControllerLog();
  EXPECT_EQ(CountPods(cluster.Get("pods -n susan"), "Running"), 0) << "no part of the gang runs";
  ASSERT_EQ(cluster.Kubectl("delete pod holder -n joe --wait=false").exit_code, 0);
  ASSERT_TRUE(cluster.WaitFor(
      60, [&](const Json&) { return CountPods(cluster.Get("pods -n susan"), "Running") == 4; }))
      << cluster.Kubectl("get pods -A -o wide").output << cluster.ControllerLog();
  EXPECT_EQ(cluster.CheckDevices(), "");
}

constexpr char kPyTorchJob[] = R"(---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: bert, namespace: susan}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        metadata: {labels: {gpupool.dev/queue: train}}
        spec: {containers: [{name: pytorch, image: trainer, resources: {limits: {nvidia.com/gpu: "2"}}}]}
    Worker:
      replicas: 3
      template:
        metadata: {labels: {gpupool.dev/queue: train}}
        spec: {containers: [{name: pytorch, image: trainer, resources: {limits: {nvidia.com/gpu: "2"}}}]}
)";

// A pod of PyTorchJob bert (uid `uid`) as the training operator makes it from
// the replica's template: owned by the PyTorchJob, with the template's label.
std::string OperatorPodYaml(const std::string& name, const std::string& uid) {
  return "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
         "\n  namespace: susan\n"
         "  labels: {gpupool.dev/queue: train, training.kubeflow.org/job-name: bert}\n"
         "  annotations: {sandbox.gpupool.dev/run-seconds: \"100000\"}\n"
         "  ownerReferences: [{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: bert, uid: " +
         uid +
         ", controller: true}]\n"
         "spec:\n  restartPolicy: OnFailure\n"
         "  containers: [{name: pytorch, image: trainer, resources: {limits: {nvidia.com/gpu: "
         "\"2\"}}}]\n";
}

int CountTold(const Json& pods, const std::string& reason) {
  int told = 0;
  for (const Json& pod : pods) told += AdmittedReason(pods, pod["metadata"]["name"]) == reason;
  return told;
}

// A PyTorchJob's pods, made here as the Kubeflow training operator makes them
// (its CRD installed first), are one gang of its 4 replicas: with 3 made, none
// runs and each says why; with the fourth, all run, and the PyTorchJob is told.
TEST_P(PodGroupsOnBackend, APyTorchJobsPodsStartWholeOnceItsOperatorMadeThemAll) {
  ClusterHarness cluster(kStoryNodes, {}, {}, GetParam(), /*start_controller=*/false);
  const auto crds = cluster.Kubectl(
      "apply -f " + sandbox::testing::SourcePath("tests/support/stand_in_crds.yaml"));
  ASSERT_EQ(crds.exit_code, 0) << crds.output;
  ASSERT_EQ(
      cluster.Kubectl("wait --for=condition=Established crd/pytorchjobs.kubeflow.org").exit_code,
      0);
  cluster.StartControllerServingWebhook();
  cluster.Apply(kStory1Projects + std::string(kPyTorchJob));
  std::string uid =
      cluster.Kubectl("get pytorchjob bert -n susan -o jsonpath={.metadata.uid}").output;
  ASSERT_FALSE(uid.empty());
  cluster.Apply(OperatorPodYaml("bert-master-0", uid) + OperatorPodYaml("bert-worker-0", uid) +
                OperatorPodYaml("bert-worker-1", uid));
  ASSERT_TRUE(cluster.WaitFor(
      40,
      [&](const Json&) { return CountTold(cluster.Get("pods -n susan"), "WaitingForPods") == 3; }))
      << cluster.Kubectl("get pods -A -o yaml").output << cluster.ControllerLog();
  EXPECT_EQ(CountPods(cluster.Get("pods -n susan"), "Running"), 0) << "no part of the gang runs";
  cluster.Apply(OperatorPodYaml("bert-worker-2", uid));
  ASSERT_TRUE(cluster.WaitFor(
      40, [&](const Json&) { return CountPods(cluster.Get("pods -n susan"), "Running") == 4; }))
      << cluster.Kubectl("get pods -A -o wide").output << cluster.ControllerLog();
  const auto told =
      cluster.Kubectl("get events -n susan --field-selector involvedObject.kind=PyTorchJob");
  EXPECT_NE(told.output.find("Admitted"), std::string::npos) << told.output;
  EXPECT_EQ(cluster.CheckDevices(), "");
}

INSTANTIATE_TEST_SUITE_P(All, PodGroupsOnBackend,
                         ::testing::ValuesIn(backends::testing::Backends()), [](const auto& info) {
                           return backends::testing::BackendTestName(info.param);
                         });

}  // namespace
}  // namespace gpupool::op::testing
