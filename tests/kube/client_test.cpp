#include "gpupool/kube/client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpupool/json/dump.h"
#include "gpupool/kube/errors.h"
#include "test_util.h"

namespace gpupool::kube {
namespace {

using namespace gpupool::kube::testing;
using ::testing::HasSubstr;

Json Pod(const std::string& name, const std::string& app) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"labels", {{"app", app}}}}},
          {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "busybox"}}})}}}};
}

class ClientTest : public ::testing::Test {
 protected:
  FakeApiServer server_;
  Client client_{PlainConfig(server_), FastOptions()};
};

TEST_F(ClientTest, CreateGetUpdateAndConflict) {
  Json created = client_.Create(resources::kPods, "team-a", Pod("p1", "web"));
  EXPECT_EQ(NamespaceOf(created), "team-a");
  Json fetched = client_.Get(resources::kPods, "team-a", "p1");
  EXPECT_EQ(ResourceVersionOf(fetched), ResourceVersionOf(created));
  fetched["metadata"]["labels"]["tier"] = "front";
  Json updated = client_.Update(resources::kPods, "team-a", fetched);
  EXPECT_EQ(updated["metadata"]["labels"]["tier"], "front");
  try {
    client_.Update(resources::kPods, "team-a", fetched);  // Stale resourceVersion.
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_TRUE(IsConflict(e)) << e.what();
  }
  try {
    client_.Create(resources::kPods, "team-a", Pod("p1", "web"));
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_TRUE(IsAlreadyExists(e)) << e.what();
  }
  auto request = server_.Requests().back();
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.path, "/api/v1/namespaces/team-a/pods");
}

// An object the caller encoded itself is posted as it is; the server's
// refusals come back typed, as a Create's do.
TEST_F(ClientTest, CreateEncodedPostsTheTextAndReportsRefusals) {
  const std::string body = json::Dump(Pod("p2", "web"));
  client_.CreateEncoded(resources::kPods, "team-a", body);
  const auto request = server_.Requests().back();
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.path, "/api/v1/namespaces/team-a/pods");
  EXPECT_EQ(request.body, body);
  EXPECT_EQ(client_.Get(resources::kPods, "team-a", "p2")["metadata"]["labels"]["app"], "web");
  try {
    client_.CreateEncoded(resources::kPods, "team-a", body);
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_TRUE(IsAlreadyExists(e)) << e.what();
  }
  try {
    client_.CreateEncoded(resources::kPods, "team-a", "{\"kind\": ");
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_FALSE(IsAlreadyExists(e)) << e.what();
  }
}

TEST_F(ClientTest, NotFoundAndInvalidAreTyped) {
  try {
    client_.Get(resources::kPods, "team-a", "nope");
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_TRUE(IsNotFound(e));
    EXPECT_THAT(e.what(), HasSubstr("GET /api/v1/namespaces/team-a/pods/nope"));
  }
  try {
    client_.Create(resources::kPods, "team-a", Json{{"metadata", Json::object()}});
    ADD_FAILURE();
  } catch (const ApiError& e) {
    ASSERT_TRUE(IsInvalid(e));
    ASSERT_EQ(e.causes().size(), 1u);
    EXPECT_EQ(e.causes()[0].field, "metadata.name");
  }
  EXPECT_THROW(client_.Get(resources::kPods, "", "p"), std::invalid_argument);
  EXPECT_THROW(client_.Update(resources::kPods, "a", Json::object()), std::invalid_argument);
}

TEST_F(ClientTest, ListsWithSelectorsAndPages) {
  for (std::string name : {"p0", "p1", "p2", "p3", "p4", "p5", "p6"})
    client_.Create(resources::kPods, "team-a", Pod(name, (name[1] - '0') % 2 ? "odd" : "even"));
  client_.Create(resources::kPods, "team-b", Pod("other", "even"));
  ListPage even = client_.List(resources::kPods, "team-a", {.label_selector = "app=even"});
  EXPECT_EQ(even.items.size(), 4u);
  EXPECT_EQ(server_.Requests().back().query["labelSelector"], "app=even");
  ListPage first = client_.List(resources::kPods, "", {.limit = 3});
  EXPECT_EQ(first.items.size(), 3u);
  EXPECT_FALSE(first.continue_token.empty());
  ListPage all = client_.ListAll(resources::kPods, "", {.limit = 3});
  EXPECT_EQ(all.items.size(), 8u);
  EXPECT_EQ(all.resource_version, std::to_string(server_.resource_version()));
  EXPECT_EQ(server_.Requests().back().path, "/api/v1/pods");
  EXPECT_FALSE(server_.Requests().back().query["continue"].empty());
}

TEST_F(ClientTest, PatchTypesSendTheirContentTypes) {
  client_.Create(resources::kPods, "a", Pod("p", "web"));
  client_.Patch(resources::kPods, "a", "p", PatchType::kMerge,
                {{"metadata", {{"labels", {{"x", "1"}}}}}});
  EXPECT_EQ(server_.Requests().back().content_type, "application/merge-patch+json");
  Json ops = Json::array({{{"op", "add"}, {"path", "/metadata/labels/y"}, {"value", "2"}}});
  Json patched = client_.Patch(resources::kPods, "a", "p", PatchType::kJson, ops);
  EXPECT_EQ(patched["metadata"]["labels"]["y"], "2");
  EXPECT_EQ(server_.Requests().back().content_type, "application/json-patch+json");
  client_.Patch(resources::kPods, "a", "p", PatchType::kStrategicMerge, {{"spec", Json::object()}});
  EXPECT_EQ(server_.Requests().back().content_type, "application/strategic-merge-patch+json");
  client_.Apply(resources::kPods, "a", Pod("p", "web"), "gpupool", /*force=*/true);
  auto apply = server_.Requests().back();
  EXPECT_EQ(apply.content_type, "application/apply-patch+yaml");
  EXPECT_EQ(apply.query["fieldManager"], "gpupool");
  EXPECT_EQ(apply.query["force"], "true");
  client_.Patch(resources::kPods, "a", "p", PatchType::kMerge, {{"status", {{"phase", "Running"}}}},
                {.subresource = "status"});
  EXPECT_EQ(server_.Requests().back().path, "/api/v1/namespaces/a/pods/p/status");
  EXPECT_THROW(client_.Patch(resources::kPods, "a", "p", PatchType::kApply, Pod("p", "x")),
               std::invalid_argument);
  EXPECT_THROW(client_.Patch(resources::kPods, "a", "p", PatchType::kJson, Json::object()),
               std::invalid_argument);
}

TEST_F(ClientTest, WritesIgnoringTheirAnswerStillReportErrors) {
  const Json created =
      client_.Create(resources::kPods, "a", Pod("p", "web"), {.ignore_answer = true});
  EXPECT_EQ(created, Json::object());
  EXPECT_EQ(client_.Get(resources::kPods, "a", "p")["metadata"]["labels"]["app"], "web");
  const Json patched =
      client_.Patch(resources::kPods, "a", "p", PatchType::kMerge,
                    {{"metadata", {{"labels", {{"x", "1"}}}}}}, {.ignore_answer = true});
  EXPECT_EQ(patched, Json::object());
  EXPECT_EQ(client_.Get(resources::kPods, "a", "p")["metadata"]["labels"]["x"], "1");
  try {
    client_.Create(resources::kPods, "a", Pod("p", "web"), {.ignore_answer = true});
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_TRUE(IsAlreadyExists(e)) << e.what();
  }
  try {
    client_.Patch(resources::kPods, "a", "nope", PatchType::kMerge, Json::object(),
                  {.ignore_answer = true});
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_TRUE(IsNotFound(e)) << e.what();
  }
}

TEST_F(ClientTest, UpdateStatusDeleteEvictBind) {
  client_.Create(resources::kPods, "a", Pod("p", "web"));
  Json pod = client_.Get(resources::kPods, "a", "p");
  pod["status"] = {{"phase", "Running"}};
  EXPECT_EQ(client_.UpdateStatus(resources::kPods, "a", pod)["status"]["phase"], "Running");
  EXPECT_EQ(server_.Requests().back().path, "/api/v1/namespaces/a/pods/p/status");
  client_.Bind("a", "p", "node-1");
  EXPECT_EQ(client_.Get(resources::kPods, "a", "p")["spec"]["nodeName"], "node-1");
  EXPECT_EQ(Json::parse(server_.Requests()[server_.Requests().size() - 2].body)["target"]["name"],
            "node-1");
  client_.Evict("a", "p", {.grace_period_seconds = 30});
  auto eviction = Json::parse(server_.Requests().back().body);
  EXPECT_EQ(server_.Requests().back().path, "/api/v1/namespaces/a/pods/p/eviction");
  EXPECT_EQ(eviction["kind"], "Eviction");
  EXPECT_EQ(eviction["deleteOptions"]["gracePeriodSeconds"], 30);
  client_.Create(resources::kPods, "a", Pod("q", "web"));
  client_.Delete(resources::kPods, "a", "q",
                 {.propagation_policy = "Foreground",
                  .grace_period_seconds = 0,
                  .precondition_uid = "uid-1",
                  .precondition_resource_version = "7"});
  auto body = Json::parse(server_.Requests().back().body);
  EXPECT_EQ(server_.Requests().back().method, "DELETE");
  EXPECT_EQ(body["propagationPolicy"], "Foreground");
  EXPECT_EQ(body["gracePeriodSeconds"], 0);
  EXPECT_EQ(body["preconditions"]["uid"], "uid-1");
  EXPECT_EQ(body["preconditions"]["resourceVersion"], "7");
  EXPECT_TRUE(server_.Objects("/api/v1/pods").empty());
}

TEST_F(ClientTest, CustomAndClusterScopedResources) {
  Json job = {{"apiVersion", "gpupool.dev/v1alpha1"},
              {"kind", "TrainingJob"},
              {"metadata", {{"name", "j"}}},
              {"spec", {{"queue", "train"}}}};
  client_.Create(resources::kTrainingJobs, "team-a", job);
  EXPECT_EQ(server_.Requests().back().path,
            "/apis/gpupool.dev/v1alpha1/namespaces/team-a/trainingjobs");
  Json queue = {
      {"apiVersion", "gpupool.dev/v1alpha1"}, {"kind", "Queue"}, {"metadata", {{"name", "train"}}}};
  client_.Create(resources::kQueues, "", queue);
  EXPECT_EQ(server_.Requests().back().path, "/apis/gpupool.dev/v1alpha1/queues");
  EXPECT_EQ(client_.Get(resources::kQueues, "", "train")["kind"], "Queue");
  EXPECT_EQ(client_.List(resources::kTrainingJobs, "").items.size(), 1u);
  client_.Create(resources::kNodes, "", {{"metadata", {{"name", "n1"}}}});
  EXPECT_EQ(server_.Requests().back().path, "/api/v1/nodes");
}

TEST_F(ClientTest, DiscoveryReportsServedResources) {
  EXPECT_TRUE(client_.Serves(resources::kEvents));
  server_.ServeEventsV1(false);
  EXPECT_FALSE(client_.Serves(resources::kEvents));
  EXPECT_TRUE(client_.Serves(resources::kCoreEvents));
}

}  // namespace
}  // namespace gpupool::kube
