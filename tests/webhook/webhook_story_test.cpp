// The webhook on every backend, called by the API server itself: its
// certificates kept in a Secret and in the MutatingWebhookConfiguration, a
// labelled pod gated at creation and an unlabelled one untouched, bad opt-in
// values refused, the gate kept for the controller; with the webhook down, a
// labelled create fails with a clear message and an unlabelled one succeeds;
// after a restart the same pair serves again, and a rotation keeps serving.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "fidelity_fixture.h"
#include "gpupool/kube/config.h"
#include "gpupool/tls/certificates.h"
#include "gpupool/webhook/certificates.h"
#include "gpupool/webhook/server.h"

namespace gpupool::webhook {
namespace {

using backends::testing::FidelityOnBackend;
using backends::testing::Json;
using backends::testing::Reply;
using backends::testing::Send;
using ::testing::HasSubstr;

constexpr char kControllerUser[] = "system:serviceaccount:gpupool-system:gpupool";

class WebhookOnBackend : public FidelityOnBackend {
 protected:
  void SetUp() override {
    FidelityOnBackend::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (Send(*client_, "GET", "/apis/admissionregistration.k8s.io/v1").status != 200)
      GTEST_SKIP() << "the " << GetParam() << " backend serves no admissionregistration.k8s.io/v1";
    kube_ = std::make_unique<kube::Client>(kube::LoadKubeconfig({cluster_->kubeconfig()}));
    settings_.ns = ns_;
    settings_.configuration = "gpupool-pods-" + ns_;
    settings_.alt_names = "IP:127.0.0.1";
  }

  void TearDown() override {
    server_.reset();
    keeper_.reset();
    if (client_)
      Send(*client_, "DELETE",
           "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/" +
               settings_.configuration);
    FidelityOnBackend::TearDown();
  }

  void StartWebhook(int port = 0) {
    keeper_ = std::make_unique<CertificateKeeper>(
        std::make_unique<kube::Client>(kube::LoadKubeconfig({cluster_->kubeconfig()})), settings_,
        std::chrono::seconds(3600));
    server_ = ServeWebhook({"127.0.0.1", port}, keeper_->context(), {{kControllerUser}});
  }

  // Called for this test's namespace only: tests of other suites share the cluster.
  Json Configuration(const std::string& failure_policy) const {
    const Json selector = {{"matchExpressions",
                            {{{"key", "gpupool.dev/queue"}, {"operator", "Exists"}},
                             {{"key", "gpupool.dev/job"}, {"operator", "DoesNotExist"}}}}};
    const Json namespaces = {
        {"matchExpressions",
         {{{"key", "kubernetes.io/metadata.name"}, {"operator", "In"}, {"values", {ns_}}}}}};
    const Json hook = {
        {"name", "pods.gpupool.dev"},
        {"clientConfig",
         {{"url", "https://127.0.0.1:" + std::to_string(server_->port()) + kMutatePodsPath}}},
        {"rules",
         {{{"apiGroups", {""}},
           {"apiVersions", {"v1"}},
           {"resources", {"pods"}},
           {"operations", {"CREATE", "UPDATE"}},
           {"scope", "Namespaced"}}}},
        {"objectSelector", selector},
        {"namespaceSelector", namespaces},
        {"failurePolicy", failure_policy},
        {"sideEffects", "None"},
        {"timeoutSeconds", 5},
        {"admissionReviewVersions", {"v1"}}};
    return {{"apiVersion", "admissionregistration.k8s.io/v1"},
            {"kind", "MutatingWebhookConfiguration"},
            {"metadata", {{"name", settings_.configuration}}},
            {"webhooks", {hook}}};
  }

  // Registers the webhook, writes its CA bundle, and waits (at most 15 s) until
  // the API server calls it: a real one picks configurations up from a watch.
  void Register(const std::string& failure_policy = "Fail") {
    const Reply made = Send(*client_, "POST",
                            "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
                            Configuration(failure_policy));
    ASSERT_EQ(made.status, 201) << made.body;
    ASSERT_TRUE(KeepCertificates(*kube_, settings_).configuration_found);
    ASSERT_TRUE(CalledWithin(std::chrono::seconds(15))) << "the webhook is never called";
  }

  // Whether a dry-run create of a labelled pod is gated within `timeout`.
  bool CalledWithin(std::chrono::seconds timeout) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!Gated(Create(LabelledPod("probe"), true))) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return true;
  }

  Json LabelledPod(const std::string& name, Json labels = {{"gpupool.dev/queue", "train"}}) const {
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"labels", labels}}},
            {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
  }

  Reply Create(const Json& pod, bool dry_run = false) const {
    return Send(*client_, "POST", CorePath("pods") + (dry_run ? "?dryRun=All" : ""), pod);
  }

  static bool Gated(const Reply& reply) {
    return reply.status == 201 && reply.json["spec"].value("schedulingGates", Json::array()) ==
                                      Json::parse(R"([{"name":"gpupool.dev/admission"}])");
  }

  std::unique_ptr<kube::Client> kube_;
  CertificateSettings settings_;
  std::unique_ptr<CertificateKeeper> keeper_;
  std::unique_ptr<metrics::BoundedHttpServer> server_;
};

TEST_P(WebhookOnBackend, LabelledPodsAreGatedAtCreationAndOthersUntouched) {
  StartWebhook();
  ASSERT_NO_FATAL_FAILURE(Register());
  EXPECT_TRUE(Gated(Create(LabelledPod("notebook"))));
  const Reply unlabelled = Create(LabelledPod("plain", Json::object()));
  EXPECT_EQ(unlabelled.status, 201) << unlabelled.body;
  EXPECT_FALSE(unlabelled.json["spec"].contains("schedulingGates"));
  const Reply bad = Create(
      LabelledPod("ddp-0", {{"gpupool.dev/queue", "train"}, {"gpupool.dev/pod-group-size", "2"}}));
  EXPECT_EQ(bad.status, 403) << bad.body;
  EXPECT_THAT(bad.json.value("message", ""),
              HasSubstr("admission webhook \"pods.gpupool.dev\" denied the request: "
                        "metadata.labels[gpupool.dev/pod-group]: is required"));
  // Only the controller removes the gate.
  const Reply released = Send(*client_, "PATCH", CorePath("pods/notebook"),
                              Json::parse(R"([{"op":"remove","path":"/spec/schedulingGates"}])"),
                              "application/json-patch+json");
  EXPECT_EQ(released.status, 403) << released.body;
  EXPECT_THAT(released.json.value("message", ""), HasSubstr("is removed by gpupool's controller"));
}

TEST_P(WebhookOnBackend, WhileTheWebhookIsDownOnlyLabelledPodsAreRefused) {
  StartWebhook();
  ASSERT_NO_FATAL_FAILURE(Register());
  const int port = server_->port();
  server_.reset();
  keeper_.reset();
  const Reply refused = Create(LabelledPod("while-down"));
  EXPECT_EQ(refused.status, 500) << refused.body;
  EXPECT_THAT(refused.json.value("message", ""),
              HasSubstr("failed calling webhook \"pods.gpupool.dev\""));
  const Reply plain = Create(LabelledPod("plain", Json::object()));
  EXPECT_EQ(plain.status, 201) << plain.body;
  // Restarted on its port, it serves the Secret's pair again: nothing was lost.
  StartWebhook(port);
  EXPECT_TRUE(Gated(Create(LabelledPod("after-restart"))));
  EXPECT_FALSE(KeepCertificates(*kube_, settings_).written);
}

TEST_P(WebhookOnBackend, ARotatedPairKeepsTheOldOneTrustedUntilEveryReplicaServesIt) {
  settings_.valid_for = std::chrono::hours(24 * 30);
  settings_.renew_before = std::chrono::hours(24 * 10);
  StartWebhook();
  ASSERT_NO_FATAL_FAILURE(Register());
  settings_.renew_before = std::chrono::hours(24 * 90);  // 30 days left is now too few.
  settings_.valid_for = std::chrono::hours(24 * 365);
  const ServedPair rotated = KeepCertificates(*kube_, settings_);
  ASSERT_TRUE(rotated.written);
  EXPECT_NE(rotated.ca_bundle.find("END CERTIFICATE"), rotated.ca_bundle.rfind("END CERTIFICATE"))
      << "the bundle holds the new CA and the one it replaced";
  // The replica still serves the previous pair: trusted through the bundle.
  EXPECT_TRUE(Gated(Create(LabelledPod("old-pair"))));
  // A real server reads the new bundle from a watch, a moment later.
  keeper_->context()->Serve(rotated.cert_pem, rotated.key_pem);
  EXPECT_TRUE(CalledWithin(std::chrono::seconds(15))) << "the new pair is not trusted";
  EXPECT_TRUE(Gated(Create(LabelledPod("new-pair"))));
  EXPECT_FALSE(KeepCertificates(*kube_, settings_).written) << "a fresh pair is kept";
}

INSTANTIATE_TEST_SUITE_P(All, WebhookOnBackend, ::testing::ValuesIn(backends::testing::Backends()),
                         backends::testing::BackendParamName);

}  // namespace
}  // namespace gpupool::webhook
