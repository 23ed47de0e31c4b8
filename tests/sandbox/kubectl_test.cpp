// Real kubectl (default flags) against a running `gpupool sandbox`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "sandbox_process.h"

namespace gpupool::sandbox::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kNodes = "2x8:pool=train,gpu=A100,rack=r1;6x2:pool=build,gpu=T4";

// Creates a ConfigMap the declarative way (JSON bodies); the imperative
// commands (protobuf bodies) have their own test below.
CommandResult ApplyConfigMap(const SandboxProcess& sandbox, const std::string& name,
                             const std::string& metadata_extra = "", const std::string& rest = "") {
  const std::string yaml =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n" + metadata_extra + rest;
  return sandbox.Kubectl("apply -f " + sandbox.WriteFile(name + ".yaml", yaml));
}

// Applies crds/, waits for Established, then examples/queues.yaml and a story.
void ApplyCrdsAndExamples(const SandboxProcess& sandbox) {
  auto result = sandbox.Kubectl("apply -f " + SourcePath("crds"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl("wait --for=condition=Established crd --all --timeout=20s");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("trainingjobs.gpupool.dev condition met"));
  for (const char* file : {"queues.yaml", "story1-susan-joe-jemma.yaml", "story5-half-gpu.yaml"}) {
    result = sandbox.Kubectl("apply -f " + SourcePath(std::string("examples/") + file));
    ASSERT_EQ(result.exit_code, 0) << file << ": " << result.output;
  }
}

TEST(KubectlTest, AppliesCrdsAndExamplesAndPrintsColumns) {
  SandboxProcess sandbox({"--nodes", kNodes, "--time-scale", "20"});
  ApplyCrdsAndExamples(sandbox);
  auto result = sandbox.Kubectl("get trainingjobs -A");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("QUEUE"));
  EXPECT_THAT(result.output, HasSubstr("CLASS"));
  EXPECT_THAT(result.output, HasSubstr("susan"));
  result = sandbox.Kubectl("get queues");
  EXPECT_THAT(result.output, HasSubstr("SHARING"));
  EXPECT_THAT(result.output, HasSubstr("Guaranteed"));
  // Applying again changes nothing.
  result = sandbox.Kubectl("apply -f " + SourcePath("examples/queues.yaml"));
  EXPECT_THAT(result.output, HasSubstr("unchanged"));
  result = sandbox.Kubectl("describe queue train");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("Sharing"));
  result = sandbox.Kubectl("get nodes -l gpu=A100");
  EXPECT_THAT(result.output, HasSubstr("node-0"));
  EXPECT_THAT(result.output, ::testing::Not(HasSubstr("node-2")));
}

TEST(KubectlTest, ExplainsCustomResources) {
  SandboxProcess sandbox;
  ASSERT_EQ(sandbox.Kubectl("apply -f " + SourcePath("crds")).exit_code, 0);
  auto result = sandbox.Kubectl("explain trainingjob.spec");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("KIND:       TrainingJob"));
  EXPECT_THAT(result.output, HasSubstr("gpusPerReplica"));
}

TEST(KubectlTest, RejectsInvalidObjectsWithFieldErrors) {
  SandboxProcess sandbox;
  ASSERT_EQ(sandbox.Kubectl("apply -f " + SourcePath("crds")).exit_code, 0);
  ASSERT_EQ(
      sandbox
          .Kubectl("apply -f " +
                   sandbox.WriteFile("ns.yaml",
                                     "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n"))
          .exit_code,
      0);
  const std::string job = R"(apiVersion: gpupool.dev/v1alpha1
kind: TrainingJob
metadata: {name: bad, namespace: team}
spec:
  queue: train
  workloadClass: Train
  replicas: 2
  minReplicas: 3
  gpusPerReplica: "0.5"
  template: {spec: {containers: [{name: main, image: busybox}]}}
)";
  auto result = sandbox.Kubectl("apply -f " + sandbox.WriteFile("bad.yaml", job));
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.output, HasSubstr("minReplicas must be <= replicas"));
  EXPECT_THAT(result.output, HasSubstr("a fractional gpusPerReplica must be below 1"));
  const std::string unknown = R"(apiVersion: gpupool.dev/v1alpha1
kind: Queue
metadata: {name: q}
spec: {sharing: Sometimes, colour: blue}
)";
  result = sandbox.Kubectl("apply -f " + sandbox.WriteFile("unknown.yaml", unknown));
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.output, HasSubstr("unknown field \"spec.colour\""));
  result =
      sandbox.Kubectl("apply --validate=false -f " + sandbox.WriteFile("unknown.yaml", unknown));
  EXPECT_THAT(result.output, HasSubstr("spec.sharing: Unsupported value: \"Sometimes\""));
}

TEST(KubectlTest, PatchesWithMergeAndJsonPatch) {
  SandboxProcess sandbox;
  ASSERT_EQ(ApplyConfigMap(sandbox, "cm", "", "data: {a: \"1\"}\n").exit_code, 0);
  auto result = sandbox.Kubectl(R"(patch configmap cm --type=merge -p '{"data":{"b":"2"}}')");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl(
      R"(patch configmap cm --type=json -p '[{"op":"replace","path":"/data/a","value":"9"}]')");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl(R"(patch configmap cm -p '{"metadata":{"labels":{"x":"y"}}}')");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl("get configmap cm -o jsonpath='{.data.a}{.data.b}{.metadata.labels.x}'");
  EXPECT_EQ(result.output, "92y");
  result = sandbox.Kubectl(
      R"(patch configmap cm --type=json -p '[{"op":"test","path":"/data/a","value":"1"}]')");
  EXPECT_NE(result.exit_code, 0);
}

// The managers of `name`'s managedFields entries and the ConfigMap's data.
std::pair<std::vector<std::string>, Json> ManagersAndData(const SandboxProcess& sandbox,
                                                          const std::string& name) {
  const auto result = sandbox.Kubectl("get configmap " + name + " -o json --show-managed-fields");
  const Json object = Json::parse(result.output, nullptr, false);
  std::vector<std::string> managers;
  if (object.is_discarded()) return {managers, nullptr};
  for (const auto& entry : object["metadata"].value("managedFields", Json::array())) {
    managers.push_back(entry.value("manager", ""));
  }
  return {managers, object.value("data", Json())};
}

TEST(KubectlTest, ServerSideApplyCreatesReappliesAndChanges) {
  SandboxProcess sandbox;
  const auto config = [&](const std::string& a) {
    return sandbox.WriteFile("ssa.yaml",
                             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n"
                             "  a: \"" +
                                 a + "\"\n  b: \"1\"\n");
  };
  auto result = sandbox.Kubectl("apply --server-side -f " + config("1"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("configmap/ssa serverside-applied"));
  const auto version = [&] {
    return sandbox.Kubectl("get configmap ssa -o jsonpath={.metadata.resourceVersion}").output;
  };
  const std::string created = version();
  result = sandbox.Kubectl("apply --server-side -f " + config("1"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(version(), created);
  result = sandbox.Kubectl("apply --server-side -f " + config("2"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(version(), created);
  const auto [managers, data] = ManagersAndData(sandbox, "ssa");
  EXPECT_EQ(managers, std::vector<std::string>{"kubectl"});
  EXPECT_EQ(data, Json::parse(R"({"a": "2", "b": "1"})"));
}

TEST(KubectlTest, ServerSideApplyConflictsUnlessForced) {
  SandboxProcess sandbox;
  const auto config = [&](const std::string& name, const std::string& a) {
    return sandbox.WriteFile(name + "-" + a + ".yaml",
                             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name +
                                 "\ndata:\n  a: \"" + a + "\"\n");
  };
  // Owned by another applier.
  ASSERT_EQ(sandbox.Kubectl("apply --server-side -f " + config("shared", "1")).exit_code, 0);
  auto result =
      sandbox.Kubectl("apply --server-side --field-manager=ops -f " + config("shared", "2"));
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output,
              HasSubstr("Apply failed with 1 conflict: conflict with \"kubectl\": .data.a"));
  EXPECT_EQ(ManagersAndData(sandbox, "shared").second["a"], "1");
  result = sandbox.Kubectl("apply --server-side --field-manager=ops --force-conflicts -f " +
                           config("shared", "2"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto [managers, data] = ManagersAndData(sandbox, "shared");
  EXPECT_EQ(data["a"], "2");
  EXPECT_EQ(managers, std::vector<std::string>{"ops"});

  // Owned by a client-side `kubectl apply`.
  ASSERT_EQ(sandbox.Kubectl("apply -f " + config("legacy", "1")).exit_code, 0);
  result = sandbox.Kubectl("apply --server-side -f " + config("legacy", "2"));
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output,
              HasSubstr("conflict with \"kubectl-client-side-apply\" using v1: .data.a"));
  result = sandbox.Kubectl("apply --server-side --force-conflicts -f " + config("legacy", "2"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::tie(managers, data) = ManagersAndData(sandbox, "legacy");
  EXPECT_EQ(data["a"], "2");
  EXPECT_THAT(managers, ::testing::Contains("kubectl"));
}

TEST(KubectlTest, DeletesWithCascade) {
  SandboxProcess sandbox;
  ASSERT_EQ(ApplyConfigMap(sandbox, "owner").exit_code, 0);
  const std::string uid = sandbox.Kubectl("get configmap owner -o jsonpath={.metadata.uid}").output;
  for (const char* name : {"child-a", "child-b"}) {
    const std::string child = std::string("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ") +
                              name +
                              "\n  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, "
                              "name: owner, uid: " +
                              uid + ", blockOwnerDeletion: true}\n";
    ASSERT_EQ(sandbox.Kubectl("apply -f " + sandbox.WriteFile(std::string(name) + ".yaml", child))
                  .exit_code,
              0);
  }
  // Foreground: the owner waits for its dependents, then goes.
  auto result = sandbox.Kubectl("delete configmap owner --cascade=foreground --timeout=20s");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl("get configmaps -o name");
  EXPECT_THAT(result.output, ::testing::Not(HasSubstr("child-a")));
  EXPECT_THAT(result.output, ::testing::Not(HasSubstr("owner")));
  // Background: owner at once, dependents soon after.
  ASSERT_EQ(ApplyConfigMap(sandbox, "owner2").exit_code, 0);
  const std::string uid2 =
      sandbox.Kubectl("get configmap owner2 -o jsonpath={.metadata.uid}").output;
  const std::string child =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: child-c\n"
      "  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: owner2, uid: " +
      uid2 + "}\n";
  ASSERT_EQ(sandbox.Kubectl("apply -f " + sandbox.WriteFile("c.yaml", child)).exit_code, 0);
  ASSERT_EQ(sandbox.Kubectl("delete configmap owner2").exit_code, 0);
  result = sandbox.Kubectl("wait --for=delete configmap/child-c --timeout=20s");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  // Orphan: dependents stay, without the owner reference.
  ASSERT_EQ(ApplyConfigMap(sandbox, "owner3").exit_code, 0);
  const std::string uid3 =
      sandbox.Kubectl("get configmap owner3 -o jsonpath={.metadata.uid}").output;
  const std::string orphan =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: child-d\n"
      "  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: owner3, uid: " +
      uid3 + "}\n";
  ASSERT_EQ(sandbox.Kubectl("apply -f " + sandbox.WriteFile("d.yaml", orphan)).exit_code, 0);
  result = sandbox.Kubectl("delete configmap owner3 --cascade=orphan --timeout=20s");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl("get configmap child-d -o jsonpath={.metadata.ownerReferences}");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, "");
}

TEST(KubectlTest, WaitsForPodsAndWatches) {
  SandboxProcess sandbox({"--nodes", kNodes, "--time-scale", "20"});
  // `get -w` in the background, bounded by --request-timeout.
  std::thread watcher;
  CommandResult watched;
  watcher = std::thread([&] { watched = sandbox.Kubectl("get pods -w --request-timeout=6s"); });
  // A failed ASSERT returns early: a joinable thread would then abort the run.
  struct JoinOnExit {
    std::thread& thread;
    ~JoinOnExit() {
      if (thread.joinable()) thread.join();
    }
  } join_watcher{watcher};
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const std::string pod = R"(apiVersion: v1
kind: Pod
metadata:
  name: trainer
  annotations: {sandbox.gpupool.dev/run-seconds: "600"}
spec:
  nodeSelector: {pool: train}
  containers:
  - name: main
    image: busybox
    resources: {limits: {nvidia.com/gpu: "8"}}
)";
  ASSERT_EQ(sandbox.Kubectl("apply -f " + sandbox.WriteFile("pod.yaml", pod)).exit_code, 0);
  auto result = sandbox.Kubectl("wait --for=condition=Ready pod/trainer --timeout=20s");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl("get pod trainer -o jsonpath={.spec.nodeName}");
  EXPECT_EQ(result.output, "node-0");
  watcher.join();
  EXPECT_THAT(watched.output, HasSubstr("trainer"));
  EXPECT_THAT(watched.output, HasSubstr("Running"));
  result = sandbox.Kubectl("delete pod trainer --timeout=20s");
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

}  // namespace
}  // namespace gpupool::sandbox::testing

namespace gpupool::sandbox::testing {
namespace {

// kubectl's typed clients send protobuf bodies for these commands.
TEST(KubectlTest, ImperativeCreateAndDrainSendingProtobuf) {
  SandboxProcess sandbox({"--nodes", "2x1:pool=train", "--time-scale", "20"});
  auto result = sandbox.Kubectl("create namespace team");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl("create configmap cm -n team --from-literal=a=1 --from-literal=b=2");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(sandbox.Kubectl("get configmap cm -n team -o jsonpath={.data.b}").output, "2");
  ASSERT_EQ(sandbox.Kubectl("run worker -n team --image=busybox").exit_code, 0);
  result = sandbox.Kubectl("wait --for=condition=Ready pod/worker -n team --timeout=20s");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl("get all -n team");  // pods, services and deployments are in `all`
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("pod/worker"));
  EXPECT_THAT(result.output, Not(HasSubstr("configmap")));
  const std::string node =
      sandbox.Kubectl("get pod worker -n team -o jsonpath={.spec.nodeName}").output;
  result = sandbox.Kubectl("drain " + node + " --force --timeout=20s");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("evicted"));
  EXPECT_THAT(sandbox.Kubectl("get node " + node).output, HasSubstr("SchedulingDisabled"));
}

// The workloads and policies kubectl's typed clients create from protobuf bodies:
// what kubectl asked for is stored, zero values as JSON has them.
TEST(KubectlTest, ImperativeCreatesOfWorkloadsAndPoliciesSendingProtobuf) {
  SandboxProcess sandbox;
  const auto get = [&](const std::string& what, const std::string& path) {
    return sandbox.Kubectl("get " + what + " -o jsonpath={" + path + "}").output;
  };
  auto result =
      sandbox.Kubectl("create deployment web --image=nginx --port=80 --replicas=2 -- sleep 100");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(get("deployment web", ".spec.replicas"), "2");
  EXPECT_EQ(get("deployment web", ".spec.template.metadata"), R"({"labels":{"app":"web"}})");
  EXPECT_EQ(get("deployment web", ".spec.template.spec.containers[0].ports[0].containerPort"),
            "80");
  EXPECT_EQ(get("deployment web", ".spec.template.spec.containers[0].command"),
            R"(["sleep","100"])");
  // apps/v1 defaults, as a real server stores them.
  EXPECT_EQ(
      get("deployment web", ".spec.strategy"),
      R"({"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},"type":"RollingUpdate"})");
  EXPECT_EQ(get("deployment web", ".spec.revisionHistoryLimit"), "10");
  EXPECT_EQ(get("deployment web", ".spec.progressDeadlineSeconds"), "600");
  EXPECT_EQ(get("deployment web", ".spec.template.spec.restartPolicy"), "Always");
  ASSERT_EQ(sandbox.Kubectl("create deployment idle --image=nginx --replicas=0").exit_code, 0);
  EXPECT_EQ(get("deployment idle", ".spec.replicas"), "0");

  ASSERT_EQ(sandbox.Kubectl("create service clusterip api --tcp=80:8080").exit_code, 0);
  EXPECT_EQ(get("service api", ".spec.ports[0].targetPort"), "8080");
  EXPECT_THAT(get("service api", ".spec.clusterIP"), HasSubstr("10.96."));
  EXPECT_EQ(get("service api", ".metadata.generation"), "") << "services have none";
  ASSERT_EQ(
      sandbox.Kubectl("create service externalname docs --external-name=example.com").exit_code, 0);
  EXPECT_EQ(get("service docs", ".spec.clusterIP"), "") << "an alias has no cluster IP";
  ASSERT_EQ(sandbox.Kubectl("create namespace team").exit_code, 0);
  EXPECT_EQ(get("namespace team", ".metadata.generation"), "");

  ASSERT_EQ(sandbox.Kubectl("create priorityclass floor --value=0 --description=lowest").exit_code,
            0);
  EXPECT_EQ(get("priorityclass floor", ".value"), "0");
  EXPECT_EQ(get("priorityclass floor", ".preemptionPolicy"), "PreemptLowerPriority");
  ASSERT_EQ(sandbox.Kubectl("create pdb none --selector=app=web --min-available=0").exit_code, 0);
  EXPECT_EQ(get("pdb none", ".spec.minAvailable"), "0");
  ASSERT_EQ(sandbox.Kubectl("create pdb half --selector=app=web --max-unavailable=50%").exit_code,
            0);
  EXPECT_EQ(get("pdb half", ".spec.maxUnavailable"), "50%");
}

// Every namespace has the ServiceAccount "default"; a pod runs as the account it
// names, which must exist, as the real ServiceAccount admission plugin demands.
TEST(KubectlTest, PodsRunAsAServiceAccountThatExists) {
  SandboxProcess sandbox;
  ASSERT_EQ(sandbox.Kubectl("create namespace team").exit_code, 0);
  EXPECT_EQ(sandbox.Kubectl("get serviceaccount default -n team -o name").output,
            "serviceaccount/default\n");
  ASSERT_EQ(sandbox.Kubectl("run plain -n team --image=busybox").exit_code, 0);
  EXPECT_EQ(sandbox.Kubectl("get pod plain -n team -o jsonpath={.spec.serviceAccountName}").output,
            "default");
  const std::string ghost = R"('--overrides={"spec":{"serviceAccountName":"ghost"}}')";
  auto result = sandbox.Kubectl("run haunted -n team --image=busybox " + ghost);
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.output, HasSubstr("pods \"haunted\" is forbidden: error looking up service "
                                       "account team/ghost: serviceaccount \"ghost\" not found"));
  ASSERT_EQ(sandbox.Kubectl("create serviceaccount ghost -n team").exit_code, 0);
  result = sandbox.Kubectl("run haunted -n team --image=busybox " + ghost);
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

// A List (what `kubectl get -o yaml` writes) is validated by kubectl against the
// OpenAPI v2 document, then applied item by item.
TEST(KubectlTest, AppliesAListItsOwnOutputIncluded) {
  SandboxProcess sandbox;
  const std::string list = R"(apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: one}, data: {a: "1"}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: two}, data: {b: "2"}}
)";
  auto result = sandbox.Kubectl("apply -f " + sandbox.WriteFile("list.yaml", list));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("configmap/two created"));
  result = sandbox.Kubectl("get configmaps one two -o yaml");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const std::string backup = sandbox.WriteFile("backup.yaml", result.output);
  ASSERT_EQ(sandbox.Kubectl("delete configmaps one two").exit_code, 0);
  result = sandbox.Kubectl("apply -f " + backup);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(sandbox.Kubectl("get configmap two -o jsonpath={.data.b}").output, "2");
  const std::string bad = R"(apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: three}, bogus: 1}
)";
  result = sandbox.Kubectl("apply -f " + sandbox.WriteFile("bad.yaml", bad));
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.output, HasSubstr("unknown field \"bogus\""));
}

TEST(KubectlTest, ServesBothEventApis) {
  SandboxProcess sandbox;
  const std::string core = R"(apiVersion: v1
kind: Event
metadata: {name: core-event}
involvedObject: {kind: Pod, name: p, namespace: default}
reason: Admitted
message: admitted by gpupool
type: Normal
)";
  const std::string events = R"(apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: new-event}
eventTime: "2026-01-01T00:00:00.000000Z"
reportingController: gpupool.dev/controller
reportingInstance: gpupool-0
action: Admit
reason: Admitted
regarding: {kind: Pod, name: p, namespace: default}
note: admitted by gpupool
type: Normal
)";
  ASSERT_EQ(sandbox.Kubectl("apply -f " + sandbox.WriteFile("core.yaml", core)).exit_code, 0);
  ASSERT_EQ(sandbox.Kubectl("apply -f " + sandbox.WriteFile("new.yaml", events)).exit_code, 0);
  auto result = sandbox.Kubectl("get events --field-selector reason=Admitted");
  EXPECT_THAT(result.output, HasSubstr("admitted by gpupool"));
  result = sandbox.Kubectl("get events.events.k8s.io -o name");
  EXPECT_THAT(result.output, HasSubstr("new-event"));
}

TEST(KubectlTest, ServicesGetClusterIpsAndPodsALog) {
  SandboxProcess sandbox({"--nodes", "1x1", "--time-scale", "20"});
  const std::string services = R"(apiVersion: v1
kind: Service
metadata: {name: web}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: gang}
spec: {clusterIP: None, ports: [{port: 29500}]}
)";
  ASSERT_EQ(sandbox.Kubectl("apply -f " + sandbox.WriteFile("svc.yaml", services)).exit_code, 0);
  EXPECT_THAT(sandbox.Kubectl("get svc web -o jsonpath={.spec.clusterIP}").output,
              HasSubstr("10.96."));
  EXPECT_EQ(sandbox.Kubectl("get svc gang -o jsonpath={.spec.clusterIP}").output, "None");
  ASSERT_EQ(sandbox.Kubectl("run p --image=busybox").exit_code, 0);
  auto result = sandbox.Kubectl("logs p");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("is simulated"));
}

}  // namespace
}  // namespace gpupool::sandbox::testing
