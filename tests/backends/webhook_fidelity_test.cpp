// Mutating admission webhooks on every backend: a MutatingWebhookConfiguration
// whose url is an HTTPS server of the test's own on 127.0.0.1, called for the
// test's labelled pods; its patch, its denial, its absence under both
// failure policies, its broken answers, and the configurations a real server
// refuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "fidelity_fixture.h"
#include "gpupool/tls/certificates.h"

namespace gpupool::backends::testing {
namespace {

using ::testing::StartsWith;

constexpr char kWebhookName[] = "pods.gate.gpupool.dev";
constexpr char kQueueLabel[] = "gpupool.dev/queue";
constexpr char kAdmissionGate[] = "gpupool.dev/admission";

std::string WebhookBase64(const std::string& data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      reinterpret_cast<const unsigned char*>(data.data()),
                                      static_cast<int>(data.size()));
  out.resize(written);
  return out;
}

// How the test's webhook answers.
enum class WebhookAnswer { kAddGate, kDeny, kWrongUid, kMalformed };

// An HTTPS admission webhook on an ephemeral loopback port, with a CA of its own.
class GateWebhookServer {
 public:
  GateWebhookServer() {
    tls::GenerateTls({"gpupool-test-webhook"}, tls_);
    server_ = std::make_unique<httplib::SSLServer>(tls_.cert, tls_.key);
    server_->Post("/mutate", [this](const httplib::Request& request, httplib::Response& response) {
      Answer(request, response);
    });
    port_ = server_->bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    // The socket listens once bound: callers connect even before the loop runs.
    for (int wait = 0; wait < 200 && !server_->is_running(); ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  ~GateWebhookServer() { Stop(); }

  void Stop() {
    if (!thread_.joinable()) return;
    server_->stop();
    thread_.join();
  }
  std::string Url() const { return "https://127.0.0.1:" + std::to_string(port_) + "/mutate"; }
  const std::string& CaPem() const { return tls_.ca_pem; }
  void SetAnswer(WebhookAnswer answer) {
    std::lock_guard lock(mutex_);
    answer_ = answer;
  }
  // The requests of the reviews received, dry runs left out.
  std::vector<Json> Requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  void Answer(const httplib::Request& request, httplib::Response& response) {
    const Json review = Json::parse(request.body, nullptr, false);
    const Json& received = review.is_object() ? review["request"] : Json();
    std::lock_guard lock(mutex_);
    if (received.is_object() && !received.value("dryRun", false)) requests_.push_back(received);
    const std::string uid = received.is_object() ? received.value("uid", "") : "";
    Json answer = {{"uid", uid}, {"allowed", true}};
    if (answer_ == WebhookAnswer::kAddGate) {
      const Json patch = {{{"op", "add"},
                           {"path", "/spec/schedulingGates"},
                           {"value", {{{"name", kAdmissionGate}}}}}};
      answer["patchType"] = "JSONPatch";
      answer["patch"] = WebhookBase64(patch.dump());
    } else if (answer_ == WebhookAnswer::kDeny) {
      answer["allowed"] = false;
      answer["status"] = {{"code", 403}, {"message", "queue train is full"}};
    } else if (answer_ == WebhookAnswer::kWrongUid) {
      answer["uid"] = "not-" + uid;
    } else {
      response.set_content("{not json", "application/json");
      return;
    }
    const Json body = {
        {"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"response", answer}};
    response.set_content(body.dump(), "application/json");
  }

  tls::TlsMaterial tls_;
  std::unique_ptr<httplib::SSLServer> server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  WebhookAnswer answer_ = WebhookAnswer::kAddGate;
  std::vector<Json> requests_;
};

Json WebhookPodJson(const std::string& name, bool labelled) {
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}}},
              {"spec", {{"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}};
  if (labelled) pod["metadata"]["labels"] = {{kQueueLabel, "train"}};
  return pod;
}

bool HasAdmissionGate(const Json& pod) {
  if (!pod.is_object() || !pod.contains("spec")) return false;
  return pod["spec"].value("schedulingGates", Json::array()) ==
         Json::array({{{"name", kAdmissionGate}}});
}

class WebhookFidelity : public FidelityOnBackend {
 protected:
  void TearDown() override {
    if (client_ && !configuration_.empty()) Send(*client_, "DELETE", ConfigurationPath());
    if (webhook_) webhook_->Stop();
    FidelityOnBackend::TearDown();
  }

  std::string ConfigurationPath() const {
    return "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/" + configuration_;
  }

  // A configuration that sends the labelled pods of the test's namespace to `webhook_`.
  Json ConfigurationJson(const std::string& failure_policy) const {
    const Json webhook = {
        {"name", kWebhookName},
        {"clientConfig",
         {{"url", webhook_->Url()}, {"caBundle", WebhookBase64(webhook_->CaPem())}}},
        {"rules",
         {{{"operations", {"CREATE"}},
           {"apiGroups", {""}},
           {"apiVersions", {"v1"}},
           {"resources", {"pods"}}}}},
        {"failurePolicy", failure_policy},
        {"sideEffects", "None"},
        {"admissionReviewVersions", {"v1"}},
        {"timeoutSeconds", 5},
        {"objectSelector",
         {{"matchExpressions", {{{"key", kQueueLabel}, {"operator", "Exists"}}}}}},
        {"namespaceSelector",
         {{"matchExpressions",
           {{{"key", "kubernetes.io/metadata.name"}, {"operator", "In"}, {"values", {ns_}}}}}}}};
    return {{"apiVersion", "admissionregistration.k8s.io/v1"},
            {"kind", "MutatingWebhookConfiguration"},
            {"metadata", {{"name", "gate-" + ns_}}},
            {"webhooks", {webhook}}};
  }

  // Starts the webhook, registers it and waits (a real server picks up
  // configurations from a watch) until a dry-run pod comes back gated.
  void StartGateWebhook(const std::string& failure_policy = "Fail") {
    webhook_ = std::make_unique<GateWebhookServer>();
    const Reply created = Send(
        *client_, "POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
        ConfigurationJson(failure_policy));
    ASSERT_EQ(created.status, 201) << created.body;
    configuration_ = "gate-" + ns_;
    ASSERT_TRUE(WaitForProbe([](const Reply& reply) { return HasAdmissionGate(reply.json); }))
        << "the webhook was not called within 10 s";
  }

  // Creates a labelled probe pod with dry run until `done` accepts the answer (10 s at most).
  bool WaitForProbe(const std::function<bool(const Reply&)>& done) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      if (done(
              Send(*client_, "POST", CorePath("pods?dryRun=All"), WebhookPodJson("probe", true)))) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  Reply CreatePod(const std::string& name, bool labelled) {
    return Send(*client_, "POST", CorePath("pods"), WebhookPodJson(name, labelled));
  }

  std::unique_ptr<GateWebhookServer> webhook_;
  std::string configuration_;
};

TEST_P(WebhookFidelity, LabelledPodIsPatchedAndReviewed) {
  ASSERT_NO_FATAL_FAILURE(StartGateWebhook());
  const Reply created = CreatePod("gated", true);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_TRUE(HasAdmissionGate(created.json)) << created.body;
  const Reply stored = Send(*client_, "GET", CorePath("pods/gated"));
  EXPECT_TRUE(HasAdmissionGate(stored.json)) << stored.body;
  const auto requests = webhook_->Requests();
  ASSERT_EQ(requests.size(), 1u);
  const Json& request = requests[0];
  EXPECT_EQ(request["kind"], (Json{{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}));
  EXPECT_EQ(request["resource"], (Json{{"group", ""}, {"version", "v1"}, {"resource", "pods"}}));
  EXPECT_EQ(request["requestKind"], request["kind"]);
  EXPECT_EQ(request["operation"], "CREATE");
  EXPECT_EQ(request["namespace"], ns_);
  EXPECT_EQ(request["name"], "gated");
  EXPECT_EQ(request["dryRun"], false);
  EXPECT_TRUE(request["oldObject"].is_null());
  EXPECT_EQ(request["options"]["kind"], "CreateOptions");
  EXPECT_EQ(request["object"]["metadata"]["labels"][kQueueLabel], "train");
  EXPECT_FALSE(request["object"]["metadata"].contains("uid")) << "uids are set after admission";
  EXPECT_EQ(request["object"]["spec"]["serviceAccountName"], "default");
  const Reply self =
      Send(*client_, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
           Json{{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}});
  EXPECT_EQ(request["userInfo"]["username"], self.json["status"]["userInfo"]["username"]);
  EXPECT_EQ(request["userInfo"]["groups"], self.json["status"]["userInfo"]["groups"]);
}

TEST_P(WebhookFidelity, UnlabelledPodIsNotSentToTheWebhook) {
  ASSERT_NO_FATAL_FAILURE(StartGateWebhook());
  const Reply created = CreatePod("plain", false);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_FALSE(created.json["spec"].contains("schedulingGates")) << created.body;
  EXPECT_TRUE(webhook_->Requests().empty());
}

TEST_P(WebhookFidelity, DenialRefusesTheCreate) {
  ASSERT_NO_FATAL_FAILURE(StartGateWebhook());
  webhook_->SetAnswer(WebhookAnswer::kDeny);
  const Reply refused = CreatePod("denied", true);
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_EQ(refused.json["message"], std::string("admission webhook \"") + kWebhookName +
                                         "\" denied the request: queue train is full");
  EXPECT_EQ(refused.json.value("reason", ""), "");
  EXPECT_EQ(Send(*client_, "GET", CorePath("pods/denied")).status, 404);
}

TEST_P(WebhookFidelity, UnreachableWebhookFailsClosedOrIsIgnored) {
  ASSERT_NO_FATAL_FAILURE(StartGateWebhook("Fail"));
  webhook_->Stop();
  const Reply refused = CreatePod("closed", true);
  EXPECT_EQ(refused.status, 500) << refused.body;
  EXPECT_EQ(refused.json["reason"], "InternalError");
  EXPECT_THAT(refused.json.value("message", ""),
              StartsWith(std::string("Internal error occurred: failed calling webhook \"") +
                         kWebhookName + "\": "));
  EXPECT_EQ(CreatePod("unlabelled", false).status, 201);
  const Reply ignore = Send(*client_, "PUT", ConfigurationPath(), [&] {
    Json configuration = ConfigurationJson("Ignore");
    configuration["metadata"]["resourceVersion"] =
        Send(*client_, "GET", ConfigurationPath()).json["metadata"]["resourceVersion"];
    return configuration;
  }());
  ASSERT_EQ(ignore.status, 200) << ignore.body;
  ASSERT_TRUE(WaitForProbe([](const Reply& reply) { return reply.status == 201; }))
      << "failurePolicy Ignore not in effect after 10 s";
  const Reply created = CreatePod("open", true);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_FALSE(HasAdmissionGate(created.json)) << created.body;
}

TEST_P(WebhookFidelity, InvalidAnswersRefuseTheCreate) {
  ASSERT_NO_FATAL_FAILURE(StartGateWebhook());
  const std::pair<WebhookAnswer, std::string> cases[] = {
      {WebhookAnswer::kWrongUid, "received invalid webhook response: expected response.uid="},
      {WebhookAnswer::kMalformed,
       "failed to call webhook: couldn't get version/kind; json parse error: "}};
  for (const auto& [answer, reason] : cases) {
    webhook_->SetAnswer(answer);
    const Reply refused = CreatePod("invalid", true);
    EXPECT_EQ(refused.status, 500) << refused.body;
    EXPECT_EQ(refused.json["reason"], "InternalError");
    EXPECT_THAT(refused.json.value("message", ""),
                StartsWith(std::string("Internal error occurred: failed calling webhook \"") +
                           kWebhookName + "\": " + reason));
  }
}

TEST_P(WebhookFidelity, BadConfigurationsAreRefused) {
  webhook_ = std::make_unique<GateWebhookServer>();
  const std::string path = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
  struct Case {
    std::function<void(Json&)> spoil;
    std::string field;
    std::string message;
  };
  const std::string prefix =
      "MutatingWebhookConfiguration.admissionregistration.k8s.io \"gate-" + ns_ + "\" is invalid: ";
  const std::vector<Case> cases = {
      {[](Json& webhook) { webhook.erase("sideEffects"); }, "webhooks[0].sideEffects",
       "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"},
      {[](Json& webhook) { webhook["clientConfig"]["url"] = "http://127.0.0.1:1/mutate"; },
       "webhooks[0].clientConfig.url",
       "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL "
       "scheme; desired format: https://host[/path]"},
      {[](Json& webhook) { webhook["name"] = "gate.gpupool"; }, "webhooks[0].name",
       "webhooks[0].name: Invalid value: \"gate.gpupool\": should be a domain with at least "
       "three segments separated by dots"},
      {[](Json& webhook) { webhook.erase("admissionReviewVersions"); },
       "webhooks[0].admissionReviewVersions",
       "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1"},
      {[](Json& webhook) { webhook["clientConfig"].erase("url"); }, "webhooks[0].clientConfig",
       "webhooks[0].clientConfig: Required value: exactly one of url or service is required"},
  };
  for (const auto& bad : cases) {
    Json configuration = ConfigurationJson("Fail");
    bad.spoil(configuration["webhooks"][0]);
    const Reply refused = Send(*client_, "POST", path, configuration);
    EXPECT_EQ(refused.status, 422) << refused.body;
    EXPECT_EQ(refused.json["reason"], "Invalid");
    EXPECT_EQ(CauseFields(refused.json), std::vector<std::string>{bad.field});
    EXPECT_EQ(refused.json["message"], prefix + bad.message);
  }
}

TEST_P(WebhookFidelity, ConfigurationGetsTheWebhookDefaults) {
  webhook_ = std::make_unique<GateWebhookServer>();
  Json configuration = ConfigurationJson("Fail");
  for (const char* field : {"failurePolicy", "timeoutSeconds", "objectSelector"}) {
    configuration["webhooks"][0].erase(field);
  }
  const Reply created =
      Send(*client_, "POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
           configuration);
  ASSERT_EQ(created.status, 201) << created.body;
  configuration_ = "gate-" + ns_;
  const Json& webhook = created.json["webhooks"][0];
  EXPECT_EQ(webhook["failurePolicy"], "Fail");
  EXPECT_EQ(webhook["matchPolicy"], "Equivalent");
  EXPECT_EQ(webhook["timeoutSeconds"], 10);
  EXPECT_EQ(webhook["objectSelector"], Json::object());
  EXPECT_EQ(webhook["reinvocationPolicy"], "Never");
  EXPECT_EQ(webhook["rules"][0]["scope"], "*");
  EXPECT_EQ(created.json["metadata"]["generation"], 1);
}

INSTANTIATE_TEST_SUITE_P(All, WebhookFidelity, ::testing::ValuesIn(Backends()), BackendParamName);

}  // namespace
}  // namespace gpupool::backends::testing
