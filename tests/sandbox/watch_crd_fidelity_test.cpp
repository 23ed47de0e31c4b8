// Watches and custom resources answered as a real kube-apiserver answers:
// expired versions, bookmarks before a timeout, generations and the types of
// field errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <thread>

#include "fidelity_util.h"

namespace gpupool::sandbox::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kConfigMaps = "/api/v1/namespaces/default/configmaps";

std::string VersionOf(const Reply& reply) {
  return reply.json["metadata"]["resourceVersion"].get<std::string>();
}

bool OnlyAnExpiredError(const std::vector<Json>& events) {
  return events.size() == 1 && events[0]["type"] == "ERROR" && events[0]["object"]["code"] == 410 &&
         events[0]["object"]["reason"] == "Expired";
}

TEST(WatchFidelityTest, VersionsOlderThanTheHistoryGetOnlyAnExpiredError) {
  SandboxProcess sandbox({"--plain-http", "--watch-history", "5"});
  auto client = sandbox.Http();
  Json labelled = ConfigMapJson("first");
  labelled["metadata"]["labels"] = {{"app", "x"}};
  const std::string rv = VersionOf(Send(*client, "POST", kConfigMaps, labelled));
  for (int i = 0; i < 8; ++i) {
    Json more = ConfigMapJson("later-" + std::to_string(i));
    more["metadata"]["labels"] = {{"app", "x"}};
    Send(*client, "POST", kConfigMaps, more);
  }
  for (const char* query : {"", "&labelSelector=app%3Dx", "&allowWatchBookmarks=true",
                            "&fieldSelector=metadata.name%3Dfirst"}) {
    const auto events = ReadWatchEvents(
        *client, kConfigMaps + "?watch=true&timeoutSeconds=5&resourceVersion=" + rv + query);
    EXPECT_TRUE(OnlyAnExpiredError(events)) << query << ": " << Json(events).dump();
  }
  // Every resource shares the history: pods behind it expire as well.
  const auto events =
      ReadWatchEvents(*client, "/api/v1/pods?watch=true&timeoutSeconds=5&resourceVersion=" + rv);
  EXPECT_TRUE(OnlyAnExpiredError(events)) << Json(events).dump();
}

TEST(WatchFidelityTest, VersionsBeforeACompactionExpireAndLaterOnesResume) {
  SandboxProcess sandbox({"--plain-http", "--fault-compact", "0.5"});
  auto client = sandbox.Http();
  const std::string old_rv = VersionOf(Send(*client, "POST", kConfigMaps, ConfigMapJson("a")));
  // A change after it: compaction then drops an event the watch would need.
  Send(*client, "POST", kConfigMaps, ConfigMapJson("a2"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));
  auto events = ReadWatchEvents(
      *client, kConfigMaps + "?watch=true&timeoutSeconds=5&resourceVersion=" + old_rv);
  EXPECT_TRUE(OnlyAnExpiredError(events)) << Json(events).dump();
  // A fresh list's version resumes, with no replay of what it listed.
  const std::string listed = VersionOf(Send(*client, "GET", kConfigMaps));
  Send(*client, "POST", kConfigMaps, ConfigMapJson("b"));
  events = ReadWatchEvents(*client,
                           kConfigMaps + "?watch=true&timeoutSeconds=5&resourceVersion=" + listed,
                           [](const Json&) { return true; });
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0]["type"] == "ADDED" || events[0]["type"] == "ERROR") << events[0].dump();
  if (events[0]["type"] == "ADDED") {
    EXPECT_EQ(events[0]["object"]["metadata"]["name"], "b");
  }
}

// A live watch sends every change in order, or ends with 410 Expired where it
// fell behind the history: never a gap, even for changes that come in a burst
// while it gathers them.
TEST(WatchFidelityTest, ALiveWatchBehindABurstExpiresWithoutAGap) {
  SandboxProcess sandbox({"--plain-http", "--watch-history", "5"});
  const std::string listed = VersionOf(Send(*sandbox.Http(), "GET", kConfigMaps));
  std::vector<Json> seen;
  std::thread watcher([&] {
    seen = ReadWatchEvents(*sandbox.Http(),
                           kConfigMaps + "?watch=true&timeoutSeconds=3&resourceVersion=" + listed);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::mutex mutex;
  std::vector<long> created;
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      auto client = sandbox.Http();
      for (int i = 0; i < 15; ++i) {
        const Reply reply = Send(*client, "POST", kConfigMaps,
                                 ConfigMapJson("burst-" + std::to_string(w * 15 + i)));
        std::lock_guard lock(mutex);
        created.push_back(std::stol(VersionOf(reply)));
      }
    });
  }
  for (auto& writer : writers) writer.join();
  watcher.join();
  std::sort(created.begin(), created.end());
  std::size_t added = 0;
  for (; added < seen.size() && seen[added]["type"] == "ADDED"; ++added) {
    ASSERT_LT(added, created.size());
    EXPECT_EQ(std::stol(seen[added]["object"]["metadata"]["resourceVersion"].get<std::string>()),
              created[added])
        << "change " << added << " of the burst";
  }
  if (added < created.size()) {
    ASSERT_EQ(seen.size(), added + 1) << Json(seen).dump();
    EXPECT_TRUE(OnlyAnExpiredError({seen.back()})) << seen.back().dump();
  }
}

TEST(WatchFidelityTest, MalformedVersionsAreBadRequests) {
  SandboxProcess sandbox({"--plain-http"});
  auto client = sandbox.Http();
  for (const char* rv : {"-5", "+3", "%201", "abc"}) {
    const Reply reply =
        Send(*client, "GET", kConfigMaps + "?watch=true&resourceVersion=" + std::string(rv));
    EXPECT_EQ(reply.status, 400) << rv << ": " << reply.body;
  }
}

TEST(WatchFidelityTest, ABookmarkComesShortlyBeforeTheTimeout) {
  SandboxProcess sandbox({"--plain-http"});  // periodic bookmarks every 10 s
  auto client = sandbox.Http();
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> at;
  const auto events = ReadWatchEvents(
      *client, kConfigMaps + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=4",
      [&](const Json&) {
        at.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        return false;
      });
  const double ended =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(events.size(), 1u) << Json(events).dump();
  EXPECT_EQ(events[0]["type"], "BOOKMARK");
  EXPECT_GT(at[0], 1.5);  // two seconds before the four-second timeout
  EXPECT_LT(at[0], 3.0);
  EXPECT_GT(ended, 3.5);
  EXPECT_LT(ended, 6.0);
}

const char* kWidgetCrd = R"({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.example.com"},
  "spec": {"group": "example.com", "scope": "Namespaced",
    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
    "versions": [{"name": "v1", "served": true, "storage": true,
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "required": ["size"], "properties": {
          "size": {"type": "integer"},
          "color": {"type": "string", "enum": ["red", "blue"]}}},
        "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}}}}]}})";

class WidgetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(Send(*client_, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                   Json::parse(kWidgetCrd))
                  .status,
              201);
  }
  Json Widget(const std::string& name, const Json& spec) {
    return {{"apiVersion", "example.com/v1"},
            {"kind", "Widget"},
            {"metadata", {{"name", name}}},
            {"spec", spec}};
  }

  SandboxProcess sandbox_{{"--plain-http"}};
  std::unique_ptr<httplib::Client> client_ = sandbox_.Http();
  const std::string widgets_ = "/apis/example.com/v1/namespaces/default/widgets";
};

// The real server decodes a schema into typed fields: a keyword's value of
// the wrong type refuses the definition, not every object checked against it.
TEST(CrdFidelityTest, AKeywordValueOfTheWrongTypeRefusesTheDefinition) {
  SandboxProcess sandbox({"--plain-http"});
  Json crd = Json::parse(kWidgetCrd);
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
     ["color"]["minLength"] = "3";
  const Reply reply =
      Send(*sandbox.Http(), "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
  ASSERT_EQ(reply.status, 422) << reply.body;
  EXPECT_THAT(reply.json["message"].get<std::string>(),
              HasSubstr("spec.versions[0].schema.openAPIV3Schema.properties.spec.properties."
                        "color.minLength: must be a non-negative integer"));
}

TEST_F(WidgetTest, WithoutAStatusSubresourceStatusChangesBumpTheGeneration) {
  ASSERT_EQ(Send(*client_, "POST", widgets_, Widget("w", {{"size", 1}})).status, 201);
  Reply reply = Send(*client_, "PATCH", widgets_ + "/w", Json{{"status", {{"ready", true}}}},
                     "application/merge-patch+json");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json["metadata"]["generation"], 2);
  EXPECT_EQ(reply.json["status"]["ready"], true);
  reply = Send(*client_, "PATCH", widgets_ + "/w",
               Json{{"metadata", {{"labels", {{"team", "a"}}}}}}, "application/merge-patch+json");
  EXPECT_EQ(reply.json["metadata"]["generation"], 2) << "metadata changes do not count";
}

TEST_F(WidgetTest, FieldErrorCausesCarryTheirRealTypes) {
  const Reply reply = Send(*client_, "POST", widgets_, Widget("bad", {{"color", "green"}}));
  ASSERT_EQ(reply.status, 422) << reply.body;
  std::map<std::string, std::string> reasons;
  for (const auto& cause : reply.json["details"]["causes"])
    reasons[cause["field"]] = cause["reason"];
  EXPECT_EQ(reasons["spec.size"], "FieldValueRequired") << reply.body;
  EXPECT_EQ(reasons["spec.color"], "FieldValueNotSupported") << reply.body;
  EXPECT_EQ(reply.json["details"]["kind"], "Widget");
  EXPECT_EQ(reply.json["details"]["group"], "example.com");
  EXPECT_THAT(reply.json["message"].get<std::string>(),
              HasSubstr("Widget.example.com \"bad\" is invalid"));
}

// The server's validation ratcheting: after the definition tightens, objects
// valid before keep taking updates that leave their now-invalid parts alone.
TEST_F(WidgetTest, AnUpdateIsRefusedOnlyForWhatItChangesAfterTheSchemaTightens) {
  ASSERT_EQ(Send(*client_, "POST", widgets_, Widget("w", {{"size", 20}, {"color", "red"}})).status,
            201);
  const std::string crd_path =
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com";
  Json crd = Send(*client_, "GET", crd_path).json;
  Json& spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
  spec["properties"]["color"]["enum"] = {"blue"};
  spec["x-kubernetes-validations"] = {{{"rule", "self.size < 10"}, {"message", "too large"}}};
  Reply reply = Send(*client_, "PUT", crd_path, crd);
  ASSERT_EQ(reply.status, 200) << reply.body;

  const auto patch = [&](const Json& body) {
    return Send(*client_, "PATCH", widgets_ + "/w", body, "application/merge-patch+json");
  };
  reply = patch({{"status", {{"ready", true}}}});
  EXPECT_EQ(reply.status, 200) << "the spec is unchanged: " << reply.body;
  reply = patch({{"metadata", {{"labels", {{"team", "a"}}}}}});
  EXPECT_EQ(reply.status, 200) << reply.body;
  reply = patch({{"spec", {{"size", 30}}}});
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("too large"));
  reply = patch({{"spec", {{"color", "green"}}}});
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("spec.color"));
  reply = patch({{"spec", {{"size", 5}}}});
  EXPECT_EQ(reply.status, 200) << "the unchanged red is ratcheted: " << reply.body;
  EXPECT_EQ(reply.json["spec"]["color"], "red");
  reply = Send(*client_, "POST", widgets_, Widget("v", {{"size", 5}, {"color", "red"}}));
  EXPECT_EQ(reply.status, 422) << "a create has nothing to ratchet: " << reply.body;
}

// As the real server's status strategy: a write through /status is checked
// against the schema's status property alone, so a rule the rest of the
// object breaks since the definition changed does not block the controller
// that reports its status.
TEST_F(WidgetTest, AStatusWriteIsValidatedAgainstTheStatusSchemaAlone) {
  ASSERT_EQ(Send(*client_, "POST", widgets_, Widget("w", {{"size", 1}})).status, 201);
  const std::string crd_path =
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com";
  Json crd = Send(*client_, "GET", crd_path).json;
  crd["spec"]["versions"][0]["subresources"] = {{"status", Json::object()}};
  Json& root = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
  root["properties"]["owner"] = {{"type", "string"}};
  root["required"] = {"owner"};
  ASSERT_EQ(Send(*client_, "PUT", crd_path, crd).status, 200);

  const auto patch_status = [&](const Json& body, const std::string& query = "") {
    return Send(*client_, "PATCH", widgets_ + "/w/status" + query, body,
                "application/merge-patch+json");
  };
  Reply reply = patch_status({{"status", {{"ready", true}}}});
  EXPECT_EQ(reply.status, 200) << "the missing owner is not the status's: " << reply.body;
  EXPECT_EQ(reply.json["status"]["ready"], true);
  reply = Send(*client_, "PATCH", widgets_ + "/w", Json{{"spec", {{"size", 2}}}},
               "application/merge-patch+json");
  EXPECT_EQ(reply.status, 422) << "a write of the object itself checks the root: " << reply.body;
  EXPECT_EQ(CauseFields(reply.json), (std::vector<std::string>{"owner"}));

  reply = patch_status({{"status", {{"ready", "yes"}}}});
  ASSERT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(CauseFields(reply.json), (std::vector<std::string>{"status.ready"}));
  reply = patch_status({{"status", {{"ready", false}, {"bogus", 1}}}}, "?fieldValidation=Strict");
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_EQ(reply.json["message"], "strict decoding error: unknown field \"status.bogus\"");
  reply = patch_status({{"status", {{"ready", false}, {"bogus", 1}}}});
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_FALSE(reply.json["status"].contains("bogus")) << "pruned";
}

// A custom resource takes no strategic merge patch and no protobuf body; the
// 415 lists what it does take, as the real server's does.
TEST_F(WidgetTest, UnsupportedMediaTypesListWhatACustomResourceAccepts) {
  ASSERT_EQ(Send(*client_, "POST", widgets_, Widget("w", {{"size", 1}})).status, 201);
  Reply reply = Send(*client_, "PATCH", widgets_ + "/w", Json{{"spec", {{"size", 2}}}},
                     "application/strategic-merge-patch+json");
  EXPECT_EQ(reply.status, 415) << reply.body;
  EXPECT_EQ(reply.json["message"],
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, "
            "application/apply-patch+yaml");
  reply = SendRaw(*client_, "POST", widgets_, "k8s\0", "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(reply.status, 415) << reply.body;
  EXPECT_EQ(reply.json["message"],
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json, application/yaml");
  reply = SendRaw(*client_, "PATCH", kConfigMaps + "/none", "{}", "application/xml");
  EXPECT_EQ(reply.status, 415) << reply.body;
  EXPECT_THAT(reply.json["message"].get<std::string>(),
              HasSubstr("include: application/json-patch+json, application/merge-patch+json, "
                        "application/strategic-merge-patch+json, application/apply-patch+yaml"));
  reply = SendRaw(*client_, "POST", kConfigMaps, "a: b", "text/plain");
  EXPECT_EQ(reply.status, 415) << reply.body;
  EXPECT_THAT(reply.json["message"].get<std::string>(),
              HasSubstr("include: application/json, application/yaml, "
                        "application/vnd.kubernetes.protobuf"));
}

// As the real server: rules run beside schema errors of value (a maximum), but
// not after a blocking one (an enum): one error then says they were skipped.
TEST_F(WidgetTest, RulesRunUnlessASchemaErrorBlocksThem) {
  const std::string crd_path =
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com";
  Json crd = Send(*client_, "GET", crd_path).json;
  Json& spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
  spec["properties"]["size"]["maximum"] = 100;
  spec["x-kubernetes-validations"] = {{{"rule", "self.size < 10"}, {"message", "too large"}}};
  ASSERT_EQ(Send(*client_, "PUT", crd_path, crd).status, 200);

  Reply reply = Send(*client_, "POST", widgets_, Widget("a", {{"size", 200}, {"color", "red"}}));
  ASSERT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(CauseFields(reply.json), (std::vector<std::string>{"spec.size", "spec"}));
  EXPECT_THAT(reply.body, HasSubstr("too large"));

  reply = Send(*client_, "POST", widgets_, Widget("b", {{"size", 20}, {"color", "green"}}));
  ASSERT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(CauseFields(reply.json), (std::vector<std::string>{"spec.color", "<nil>"}));
  EXPECT_THAT(reply.body, Not(HasSubstr("too large")));
  EXPECT_THAT(reply.json["message"].get<std::string>(),
              HasSubstr("<nil>: Invalid value: \"null\": some validation rules were not checked "
                        "because the object was invalid; correct the existing errors to complete "
                        "validation"));
}

}  // namespace
}  // namespace gpupool::sandbox::testing
