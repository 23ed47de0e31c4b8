// The identity of the reservation pods, as a hostile tenant who took a
// reservation pod's token would use it, on the real control planes: it may
// patch pods only in the reservations' own namespace, and (Kubernetes 1.30 and
// later, where the chart's ValidatingAdmissionPolicy runs) only its own pod's
// device annotation, once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "test_cluster.h"

namespace gpupool::backends::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kRelease[] = "guard";
constexpr char kNamespace[] = "guard-system";
constexpr char kReservations[] = "guard-system-reservations";
constexpr char kAccount[] = "guard-gpupool-reservation";
constexpr char kReservation[] = "gpupool-reservation-node-0-0";
constexpr char kOtherReservation[] = "gpupool-reservation-node-0-1";

std::string PodYaml(const std::string& ns, const std::string& name) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: " + ns +
         ", labels: {gpupool.dev/reservation: \"0\"}}\n"
         "spec:\n" +
         (ns == kReservations ? std::string("  serviceAccountName: ") + kAccount + "\n" : "") +
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
    if (GetParam() == "sandbox") GTEST_SKIP() << "the sandbox runs no admission policies";
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
    // As a reservation pod's own token is: bound to that pod.
    token_ = Token(std::string(" --bound-object-kind Pod --bound-object-name ") + kReservation);
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

  // A request as the reservation identity, as `gpupool reserve-device` sends
  // it (kubectl would read the pod first, which the identity may not); a body
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

TEST_P(ReservationAccountOnBackend, ReportsItsDeviceAndTouchesNothingElse) {
  auto result = PatchOwnPod(R"({"metadata":{"annotations":{"gpupool.dev/visible-devices":"0"}}})");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200) << result->body;

  // RBAC: no pod outside its namespace, no other verb, no subresource.
  const std::string label = R"({"metadata":{"labels":{"x":"y"}}})";
  result = AsReservation(
      "PATCH", std::string("/api/v1/namespaces/") + kNamespace + "/pods/controller-lookalike",
      label);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 403) << result->body;
  result = AsReservation(
      "DELETE", std::string("/api/v1/namespaces/") + kReservations + "/pods/" + kReservation);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 403) << result->body;
  result = AsReservation("GET", std::string("/api/v1/namespaces/") + kReservations + "/secrets");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 403) << result->body;
  result = PatchOwnPod(R"({"status":{"phase":"Failed"}})", "/status");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 403) << result->body;

  if (MinorVersion(GetParam()) < 30) {
    std::printf(
        "Kubernetes 1.%d serves no admissionregistration.k8s.io/v1 policies: "
        "field-level checks skipped\n",
        MinorVersion(GetParam()));
    return;
  }
  // The admission policy, once the API server has loaded it (policies take
  // effect a moment after they are created): only its device annotation,
  // nothing else of its own pod.
  const auto loaded = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < loaded) {
    result = PatchOwnPod(R"({"metadata":{"annotations":{"probe":"x"}}})", "", kOtherReservation);
    if (result && result->status != 200) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  for (const std::string patch :
       {R"([{"op":"replace","path":"/spec/containers/0/image","value":"evil"}])",
        R"({"metadata":{"labels":{"gpupool.dev/reservation":"1"}}})",
        R"({"metadata":{"annotations":{"gpupool.dev/gpu-device":"0"}}})",
        R"({"metadata":{"finalizers":["example.com/keep"]}})",
        R"({"spec":{"activeDeadlineSeconds":1}})"}) {
    result = PatchOwnPod(patch);
    ASSERT_TRUE(result);
    EXPECT_NE(result->status, 200) << patch;
    EXPECT_THAT(result->body, HasSubstr("gpupool.dev/visible-devices annotation")) << patch;
  }
  // Its report is written once, and only on its own pod: not on another
  // reservation's, nor with a token bound to no pod.
  const std::string report = R"({"metadata":{"annotations":{"gpupool.dev/visible-devices":"1"}}})";
  result = PatchOwnPod(report);
  ASSERT_TRUE(result);
  EXPECT_THAT(result->body, HasSubstr("written once")) << result->body;
  result = PatchOwnPod(report, "", kOtherReservation);
  ASSERT_TRUE(result);
  EXPECT_THAT(result->body, HasSubstr("only its own pod")) << result->body;
  token_ = Token("");
  result = PatchOwnPod(report, "", kOtherReservation);
  ASSERT_TRUE(result);
  EXPECT_THAT(result->body, HasSubstr("only its own pod")) << result->body;
}

INSTANTIATE_TEST_SUITE_P(All, ReservationAccountOnBackend, ::testing::ValuesIn(Backends()),
                         [](const auto& info) { return BackendTestName(info.param); });

}  // namespace
}  // namespace gpupool::backends::testing
