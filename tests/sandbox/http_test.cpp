// Raw HTTP against a running sandbox: auth, Status errors for bad input,
// list paging, watch bookmarks, resume and 410 Expired, timeoutSeconds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "fidelity_util.h"
#include "sandbox_process.h"

namespace gpupool::sandbox::testing {
namespace {

using ::testing::HasSubstr;

Json Post(httplib::Client& client, const std::string& path, const Json& body, int expect = 201) {
  auto response = client.Post(path.c_str(), body.dump(), "application/json");
  EXPECT_TRUE(response);
  if (!response) return Json();
  EXPECT_EQ(response->status, expect) << response->body;
  return Json::parse(response->body);
}

Json ConfigMap(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}};
}

TEST(HttpTest, RequiresTheBearerToken) {
  SandboxProcess sandbox;
  auto response = sandbox.Http(false)->Get("/api/v1/namespaces");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 401);
  EXPECT_EQ(Json::parse(response->body)["reason"], "Unauthorized");
  auto wrong = sandbox.Http(false);
  wrong->set_bearer_token_auth("not-the-token");
  EXPECT_EQ(wrong->Get("/version")->status, 401);
  EXPECT_EQ(sandbox.Http()->Get("/version")->status, 200);
}

TEST(HttpTest, ServesTheOpenApiV2HeaderAsJsonAndAsProtobuf) {
  SandboxProcess sandbox({"--plain-http"});
  auto client = sandbox.Http();
  auto response = client->Get("/openapi/v2");
  ASSERT_EQ(response->status, 200);
  const Json document = Json::parse(response->body);
  EXPECT_EQ(document["swagger"], "2.0");
  EXPECT_TRUE(document["definitions"].empty());
  response = client->Get(
      "/openapi/v2", {{"Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}});
  ASSERT_EQ(response->status, 200);
  // openapi.v2.Document: swagger (field 1) "2.0" first, empty paths (8) and definitions (9) last.
  EXPECT_EQ(response->body.substr(0, 5), std::string("\x0a\x03"
                                                     "2.0"));
  EXPECT_EQ(response->body.substr(response->body.size() - 4), std::string("\x42\x00\x4a\x00", 4));
  EXPECT_EQ(client->Get("/openapi/v1")->status, 404);
}

TEST(HttpTest, BadInputGetsStatusErrorsNamingTheProblem) {
  SandboxProcess sandbox({"--plain-http"});
  auto client = sandbox.Http();
  const std::string path = "/api/v1/namespaces/default/configmaps";
  auto response = client->Post(path.c_str(), "{not json", "application/json");
  EXPECT_EQ(response->status, 400);
  EXPECT_THAT(response->body, HasSubstr("not valid JSON"));
  response = client->Post(path.c_str(), "a: b", "text/plain");
  EXPECT_EQ(response->status, 415);
  EXPECT_EQ(Json::parse(response->body)["reason"], "UnsupportedMediaType");
  response = client->Get((path + "?labelSelector=a%20in%20b").c_str());
  EXPECT_EQ(response->status, 400);
  EXPECT_THAT(response->body, HasSubstr("labelSelector"));
  response = client->Get((path + "?fieldSelector=spec.nodeName%3Dx").c_str());
  EXPECT_EQ(response->status, 400);
  EXPECT_THAT(response->body, HasSubstr("field label not supported: spec.nodeName"));
  response = client->Get((path + "?limit=abc").c_str());
  EXPECT_EQ(response->status, 400);
  EXPECT_THAT(response->body, HasSubstr("limit"));
  response = client->Patch((path + "/missing").c_str(), "{}", "application/merge-patch+json");
  EXPECT_EQ(response->status, 404);
  EXPECT_EQ(Json::parse(response->body)["reason"], "NotFound");
  Post(*client, path, ConfigMap("cm"));
  response = client->Patch((path + "/cm").c_str(), "{}", "application/xml");
  EXPECT_EQ(response->status, 415);
  Json invalid = ConfigMap("Not_Valid");
  response = client->Post(path.c_str(), invalid.dump(), "application/json");
  EXPECT_EQ(response->status, 422);
  EXPECT_EQ(Json::parse(response->body)["details"]["causes"][0]["field"], "metadata.name");
  response = client->Post("/api/v1/namespaces/nowhere/configmaps", ConfigMap("x").dump(),
                          "application/json");
  EXPECT_EQ(response->status, 404);
  EXPECT_THAT(response->body, HasSubstr("namespaces \\\"nowhere\\\" not found"));
  response = client->Get("/apis/gpupool.dev/v1alpha1/queues");
  EXPECT_EQ(response->status, 404);
  // A real server's watch answers a malformed version with a 500 naming it.
  response = client->Get((path + "?watch=true&resourceVersion=abc").c_str());
  EXPECT_EQ(response->status, 500);
  EXPECT_THAT(response->body, HasSubstr("strconv.ParseUint: parsing \\\"abc\\\""));
}

TEST(HttpTest, ListsPageWithContinueTokens) {
  SandboxProcess sandbox({"--plain-http"});
  auto client = sandbox.Http();
  const std::string path = "/api/v1/namespaces/default/configmaps";
  for (int i = 0; i < 5; ++i) Post(*client, path, ConfigMap("cm-" + std::to_string(i)));
  std::vector<std::string> names;
  std::string token;
  int pages = 0;
  do {
    auto response =
        client->Get((path + "?limit=2" + (token.empty() ? "" : "&continue=" + token)).c_str());
    ASSERT_EQ(response->status, 200) << response->body;
    const Json list = Json::parse(response->body);
    for (const auto& item : list["items"]) names.push_back(item["metadata"]["name"]);
    token = list["metadata"].value("continue", "");
    // A change between pages does not show in the paged snapshot.
    if (pages++ == 0) Post(*client, path, ConfigMap("cm-00-late"));
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(names, (std::vector<std::string>{"cm-0", "cm-1", "cm-2", "cm-3", "cm-4"}));
  EXPECT_EQ(pages, 3);
  auto response = client->Get((path + "?limit=2&continue=garbage").c_str());
  EXPECT_EQ(response->status, 400);
}

TEST(HttpTest, WatchSendsBookmarksAndResumes) {
  SandboxProcess sandbox({"--plain-http", "--bookmark-seconds", "0.3"});
  auto client = sandbox.Http();
  const std::string path = "/api/v1/namespaces/default/configmaps";
  const Json first = Post(*client, path, ConfigMap("a"));
  const std::string rv = first["metadata"]["resourceVersion"];
  Post(*client, path, ConfigMap("b"));
  // Resume after "a": only "b" is new; then a bookmark arrives.
  auto events =
      ReadWatchEvents(*client, path + "?watch=true&allowWatchBookmarks=true&resourceVersion=" + rv,
                      [](const Json& event) { return event["type"] == "BOOKMARK"; });
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "b");
  EXPECT_EQ(events[1]["type"], "BOOKMARK");
  EXPECT_EQ(events[1]["object"]["kind"], "ConfigMap");
  EXPECT_EQ(events[1]["object"]["metadata"]["resourceVersion"],
            events[0]["object"]["metadata"]["resourceVersion"]);
}

TEST(HttpTest, WatchOfAnExpiredVersionGets410) {
  SandboxProcess sandbox({"--plain-http", "--watch-history", "3"});
  auto client = sandbox.Http();
  const std::string path = "/api/v1/namespaces/default/configmaps";
  const std::string rv = Post(*client, path, ConfigMap("first"))["metadata"]["resourceVersion"];
  for (int i = 0; i < 5; ++i) Post(*client, path, ConfigMap("later-" + std::to_string(i)));
  auto events = ReadWatchEvents(*client, path + "?watch=true&resourceVersion=" + rv);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "ERROR");
  EXPECT_EQ(events[0]["object"]["code"], 410);
  EXPECT_EQ(events[0]["object"]["reason"], "Expired");
}

// A live watch is woken by changes of its own resource only, and changes of
// others passing through the history while it waits do not expire it.
TEST(HttpTest, AWatchOutlivesOtherResourcesOverflowingTheHistory) {
  SandboxProcess sandbox({"--plain-http", "--watch-history", "3"});
  auto client = sandbox.Http();
  const std::string accounts = "/api/v1/namespaces/default/serviceaccounts";
  const std::string rv =
      Post(*client, accounts, {{"metadata", {{"name", "first"}}}})["metadata"]["resourceVersion"];
  std::vector<Json> events;
  std::thread watcher([&] {
    auto watch_client = sandbox.Http();
    events = ReadWatchEvents(*watch_client,
                             accounts + "?watch=true&timeoutSeconds=10&resourceVersion=" + rv,
                             [](const Json& event) { return event["type"] != "ADDED"; });
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the watch is waiting
  const std::string configmaps = "/api/v1/namespaces/default/configmaps";
  for (int i = 0; i < 8; ++i) Post(*client, configmaps, ConfigMap("cm-" + std::to_string(i)));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Post(*client, accounts, {{"metadata", {{"name", "second"}}}});
  client->Delete((accounts + "/second").c_str());
  watcher.join();
  ASSERT_EQ(events.size(), 2u) << Json(events).dump();
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "second");
  EXPECT_EQ(events[1]["type"], "DELETED");
  // A version from before the overflow still expires for a new watch.
  auto expired = ReadWatchEvents(*client, accounts + "?watch=true&resourceVersion=" + rv);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0]["object"]["code"], 410);
}

// A write answers with the object as stored, byte for byte what a read
// returns; an update that changes nothing answers with the unchanged object.
TEST(HttpTest, AWriteAnswersWithWhatItStored) {
  SandboxProcess sandbox({"--plain-http"});
  auto client = sandbox.Http();
  const std::string path = "/api/v1/namespaces/default/configmaps";
  auto created = client->Post(path.c_str(), R"({"metadata":{"name":"a"},"data":{"k":"v"}})",
                              "application/json");
  ASSERT_TRUE(created);
  EXPECT_EQ(created->status, 201);
  auto read = client->Get((path + "/a").c_str());
  ASSERT_TRUE(read);
  EXPECT_EQ(created->body, read->body);
  auto patched =
      client->Patch((path + "/a").c_str(), R"({"data":{"k":"w"}})", "application/merge-patch+json");
  ASSERT_TRUE(patched);
  read = client->Get((path + "/a").c_str());
  EXPECT_EQ(patched->body, read->body);
  EXPECT_NE(patched->body, created->body);
  auto unchanged = client->Put((path + "/a").c_str(), read->body, "application/json");
  ASSERT_TRUE(unchanged);
  EXPECT_EQ(unchanged->status, 200);
  EXPECT_EQ(Json::parse(unchanged->body), Json::parse(read->body));
}

TEST(HttpTest, WatchEndsAfterTimeoutSecondsAndSeesDeletes) {
  SandboxProcess sandbox({"--plain-http"});
  auto client = sandbox.Http();
  const std::string path = "/api/v1/namespaces/default/configmaps";
  const std::string rv = Post(*client, path, ConfigMap("gone"))["metadata"]["resourceVersion"];
  EXPECT_EQ(client->Delete((path + "/gone").c_str())->status, 200);
  const auto start = std::chrono::steady_clock::now();
  auto events = ReadWatchEvents(*client, path + "?watch=1&timeoutSeconds=1&resourceVersion=" + rv);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(seconds, 0.9);
  EXPECT_LT(seconds, 3);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "DELETED");
}

TEST(HttpTest, WatchListAndSelectorTransitions) {
  SandboxProcess sandbox({"--plain-http"});
  auto client = sandbox.Http();
  const std::string path = "/api/v1/namespaces/default/configmaps";
  Json labelled = ConfigMap("a");
  labelled["metadata"]["labels"] = {{"x", "1"}};
  Post(*client, path, labelled);
  Post(*client, path, ConfigMap("b"));
  std::thread patcher([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    client->Patch((path + "/a").c_str(), R"({"metadata":{"labels":{"x":"2"}}})",
                  "application/merge-patch+json");
  });
  auto watcher = sandbox.Http();
  auto events = ReadWatchEvents(*watcher,
                                path +
                                    "?watch=1&labelSelector=x%3D1&sendInitialEvents=true"
                                    "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
                                [](const Json& event) { return event["type"] == "DELETED"; });
  patcher.join();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "a");
  EXPECT_EQ(events[1]["type"], "BOOKMARK");
  EXPECT_EQ(events[1]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
  // Leaving the selector is a DELETED event for this watcher.
  EXPECT_EQ(events[2]["object"]["metadata"]["labels"]["x"], "2");
}

}  // namespace
}  // namespace gpupool::sandbox::testing
