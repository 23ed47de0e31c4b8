// The identity of the reservation pods, as a hostile tenant would probe it, on
// every backend: the pods mount no token (their report reaches the controller
// through the kubelet, as an init container's termination message), and a
// token of any account of their namespace may change nothing there or
// elsewhere: no pod's annotations, image, labels or status, no delete, no
// Secrets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "test_cluster.h"

namespace gpupool::backends::testing {
namespace {

constexpr char kRelease[] = "guard";
constexpr char kNamespace[] = "guard-system";
constexpr char kReservations[] = "guard-system-reservations";
constexpr char kAccount[] = "default";  // The only account of the reservations' namespace.
constexpr char kReservation[] = "gpupool-reservation-node-0-0";
constexpr char kOtherReservation[] = "gpupool-reservation-node-0-1";

std::string PodYaml(const std::string& ns, const std::string& name) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: " + ns +
         ", labels: {gpupool.dev/reservation: \"0\"}}\n"
         "spec:\n"
         "  automountServiceAccountToken: false\n"
         "  securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}\n"
         "  containers:\n"
         "  - name: reserve\n"
         "    image: gpupool\n"
         "    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}\n";
}

class ReservationAccountOnBackend : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_BACKEND(GetParam());
    if (RunInRepository("command -v helm").exit_code != 0)
      GTEST_SKIP() << "helm is not on PATH (scripts/install-deps installs it)";
    cluster_ = &ClusterFor(GetParam());
    const auto installed = cluster_->Helm(
        std::string("install ") + kRelease + " helm/gpupool --namespace " + kNamespace +
        " --create-namespace --wait=false --set priorityClasses.create=false --set replicas=0");
    ASSERT_EQ(installed.exit_code, 0) << installed.output;
    CreatePod(kReservations, kReservation);
    CreatePod(kReservations, kOtherReservation);
    CreatePod(kNamespace, "controller-lookalike");
    token_ = Token("");
  }

  std::string Token(const std::string& binding) {
    const auto token = cluster_->Kubectl(std::string("create token ") + kAccount + " -n " +
                                         kReservations + binding);
    EXPECT_EQ(token.exit_code, 0) << token.output;
    return token.output.substr(0, token.output.find_last_not_of("\n") + 1);
  }
  void TearDown() override {
    if (!cluster_) return;
    cluster_->Helm(std::string("uninstall ") + kRelease + " --namespace " + kNamespace +
                   " --wait=false");
    cluster_->Kubectl(std::string("delete namespace ") + kNamespace + " --wait=false");
  }

  // A new namespace takes pods once its default ServiceAccount exists.
  void CreatePod(const std::string& ns, const std::string& name) {
    const std::string path = cluster_->dir() + "/" + name + ".yaml";
    FILE* file = std::fopen(path.c_str(), "w");
    ASSERT_NE(file, nullptr);
    std::fputs(PodYaml(ns, name).c_str(), file);
    std::fclose(file);
    CommandResult created;
    for (int attempt = 0; attempt < 100; ++attempt) {
      created = cluster_->Kubectl("create -f " + path);
      if (created.exit_code == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    FAIL() << created.output;
  }

  // A request with the token of the reservations' namespace's account; a body
  // that is a list is a JSON patch, any other a merge patch.
  httplib::Result AsReservation(const std::string& method, const std::string& path,
                                const std::string& body = "") const {
    auto client = cluster_->Http();
    client->set_bearer_token_auth(token_.c_str());
    const bool json_patch = !body.empty() && body.front() == '[';
    if (method == "PATCH")
      return client->Patch(
          path, body, json_patch ? "application/json-patch+json" : "application/merge-patch+json");
    if (method == "DELETE") return client->Delete(path);
    return client->Get(path);
  }
  httplib::Result PatchOwnPod(const std::string& patch, const std::string& subresource = "",
                              const std::string& pod = kReservation) {
    return AsReservation(
        "PATCH", std::string("/api/v1/namespaces/") + kReservations + "/pods/" + pod + subresource,
        patch);
  }

  TestCluster* cluster_ = nullptr;
  std::string token_;
};

// One test, since each installs the chart in a namespace the next could not
// reuse while it is being deleted.
TEST_P(ReservationAccountOnBackend, APodMountsNoTokenAndItsNamespacesAccountMayChangeNothing) {
  // A pod that asks for no token gets none: nothing in it can call the API server.
  const auto pod = cluster_->Kubectl(std::string("get pod ") + kReservation + " -n " +
                                     kReservations + " -o json");
  ASSERT_EQ(pod.exit_code, 0) << pod.output;
  const Json spec = Json::parse(pod.output)["spec"];
  EXPECT_EQ(spec.value("automountServiceAccountToken", true), false);
  for (const auto& volume : spec.value("volumes", Json::array()))
    EXPECT_EQ(volume.value("name", "").rfind("kube-api-access", 0), std::string::npos)
        << volume.dump();

  for (const std::string patch :
       {R"({"metadata":{"annotations":{"gpupool.dev/visible-devices":"all"}}})",
        R"([{"op":"replace","path":"/spec/containers/0/image","value":"evil"}])",
        R"({"metadata":{"labels":{"gpupool.dev/reservation":"1"}}})",
        R"({"spec":{"activeDeadlineSeconds":1}})"}) {
    for (const char* pod : {kReservation, kOtherReservation}) {
      const auto result = PatchOwnPod(patch, "", pod);
      ASSERT_TRUE(result);
      EXPECT_EQ(result->status, 403) << pod << " " << patch << ": " << result->body;
    }
  }
  // Its report is the kubelet's to write: not through the status subresource.
  const std::string forged_report =
      R"({"status":{"initContainerStatuses":[{"name":"report","state":{"terminated":)"
      R"({"exitCode":0,"message":"all"}}}]}})";
  auto result = PatchOwnPod(forged_report, "/status");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 403) << result->body;
  result = AsReservation(
      "PATCH", std::string("/api/v1/namespaces/") + kNamespace + "/pods/controller-lookalike",
      R"({"metadata":{"labels":{"x":"y"}}})");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 403) << result->body;
  result = AsReservation(
      "DELETE", std::string("/api/v1/namespaces/") + kReservations + "/pods/" + kReservation);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 403) << result->body;
  result = AsReservation("GET", std::string("/api/v1/namespaces/") + kReservations + "/secrets");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 403) << result->body;
}

INSTANTIATE_TEST_SUITE_P(All, ReservationAccountOnBackend, ::testing::ValuesIn(Backends()),
                         [](const auto& info) { return BackendTestName(info.param); });

}  // namespace
}  // namespace gpupool::backends::testing
