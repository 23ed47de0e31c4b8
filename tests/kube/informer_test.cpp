#include "gpupool/kube/informer.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace gpupool::kube {
namespace {

using namespace gpupool::kube::testing;

Json Pod(const std::string& ns, const std::string& name, const std::string& node,
         const std::string& job = "j1") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"job", job}}}}},
          {"spec", {{"nodeName", node}}}};
}

ListWatchOptions FastWatch() {
  ListWatchOptions options;
  options.page_size = 2;
  options.backoff = {Millis(2), Millis(20)};
  options.idle_timeout = Millis(3'000);
  return options;
}

std::vector<std::string> NodeOf(const Json& pod) { return {pod["spec"].value("nodeName", "")}; }

class InformerTest : public ::testing::Test {
 protected:
  FakeApiServer server_;
  Client client_{PlainConfig(server_), FastOptions()};
};

TEST_F(InformerTest, SyncsListsThenFollowsWatchWithIndexesAndHandlers) {
  for (int i = 0; i < 5; ++i) server_.Put(kPodsPath, Pod("a", Numbered("p", i), "n1"));
  server_.Put(kPodsPath, Pod("b", "q", "n2", "j2"));
  Informer<Json> informer(client_, resources::kPods, "", KeepJson, FastWatch());
  informer.AddIndex("node", NodeOf);
  informer.AddIndex("job", JsonLabelIndex("job"));
  std::atomic<int> adds{0}, updates{0}, deletes{0};
  informer.AddHandlers({[&](const Json&) { ++adds; }, [&](const Json&, const Json&) { ++updates; },
                        [&](const Json&) { ++deletes; }});
  EXPECT_FALSE(informer.HasSynced());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(Millis(5'000)));
  EXPECT_EQ(informer.cache().size(), 6u);
  EXPECT_EQ(adds.load(), 6);
  EXPECT_EQ(informer.cache().ByIndex("namespace", "a").size(), 5u);
  EXPECT_EQ(informer.cache().ByIndex("node", "n2").size(), 1u);
  EXPECT_EQ(informer.cache().ByIndex("job", "j1").size(), 5u);
  EXPECT_EQ(informer.cache().ByIndex("job", "j2").size(), 1u);
  EXPECT_TRUE(informer.cache().ByIndex("job", "none").empty());
  EXPECT_THROW(informer.cache().ByIndex("nope", "x"), std::invalid_argument);

  client_.Patch(resources::kPods, "a", "p0", PatchType::kMerge, {{"spec", {{"nodeName", "n2"}}}});
  client_.Delete(resources::kPods, "b", "q");
  client_.Create(resources::kPods, "c", Pod("c", "r", "n3"));
  ASSERT_TRUE(WaitFor([&] { return informer.cache().Versions() == ServerPodVersions(server_); }));
  EXPECT_EQ(informer.cache().ByIndex("node", "n2").size(), 1u);
  EXPECT_EQ(informer.cache().ByIndex("node", "n1").size(), 4u);
  EXPECT_EQ(informer.cache().ByIndex("namespace", "b").size(), 0u);
  EXPECT_EQ(informer.Get("a", "p0")->at("spec")["nodeName"], "n2");
  EXPECT_TRUE(WaitFor([&] { return adds == 7 && updates == 1 && deletes == 1; }));
  EXPECT_EQ(informer.reflector().stats().lists, 1u);
}

TEST_F(InformerTest, CanDropManagedFieldsOfListedAndWatchedObjects) {
  Json listed = Pod("a", "listed", "n1");
  listed["metadata"]["managedFields"] = Json::array({{{"manager", "m"}}});
  server_.Put(kPodsPath, listed);
  ListWatchOptions options = FastWatch();
  options.drop_managed_fields = true;
  Informer<Json> informer(client_, resources::kPods, "", KeepJson, options);
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(Millis(5'000)));
  EXPECT_FALSE(informer.Get("a", "listed")->at("metadata").contains("managedFields"));
  Json watched = Pod("a", "watched", "n1");
  watched["metadata"]["managedFields"] = Json::array({{{"manager", "m"}}});
  client_.Create(resources::kPods, "a", watched);
  ASSERT_TRUE(WaitFor([&] { return informer.Get("a", "watched") != nullptr; }));
  const Json& metadata = informer.Get("a", "watched")->at("metadata");
  EXPECT_EQ(metadata["labels"]["job"], "j1");
  EXPECT_FALSE(metadata.contains("managedFields"));
}

TEST_F(InformerTest, LeavesChosenMembersOfListedAndWatchedObjectsUnread) {
  auto with_statuses = [](const std::string& name) {
    Json pod = Pod("a", name, "n1");
    pod["status"] = {{"phase", "Running"},
                     {"containerStatuses", Json::array({{{"name", "main"}}})},
                     {"conditions", Json::array({{{"type", "Ready"}}})}};
    pod["metadata"]["annotations"] = {{"x", "1"}, {"y", "2"}};
    return pod;
  };
  server_.Put(kPodsPath, with_statuses("listed"));
  ListWatchOptions options = FastWatch();
  options.unread_members = {{"status", "containerStatuses"}, {"metadata", "annotations", "*"}};
  Informer<Json> informer(client_, resources::kPods, "", KeepJson, options);
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(Millis(5'000)));
  client_.Create(resources::kPods, "a", with_statuses("watched"));
  ASSERT_TRUE(WaitFor([&] { return informer.Get("a", "watched") != nullptr; }));
  for (const char* name : {"listed", "watched"}) {
    const Json& pod = *informer.Get("a", name);
    EXPECT_EQ(pod["status"]["phase"], "Running") << name;
    EXPECT_EQ(pod["status"]["conditions"].size(), 1u) << name;
    EXPECT_FALSE(pod["status"].contains("containerStatuses")) << name;
    EXPECT_EQ(pod["metadata"]["labels"]["job"], "j1") << name;
    EXPECT_EQ(pod["metadata"]["annotations"], Json::object()) << name;
  }
}

TEST_F(InformerTest, ResumesFromLastResourceVersionAfterCutStreams) {
  server_.Put(kPodsPath, Pod("a", "p", "n1"));
  Informer<Json> informer(client_, resources::kPods, "a", KeepJson, FastWatch());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(Millis(5'000)));
  for (int round = 0; round < 5; ++round) {
    ASSERT_TRUE(
        WaitFor([&] { return server_.open_watches() > 0 || server_.watches_started() > round; }));
    server_.CutWatches();
    server_.Put(kPodsPath, Pod("a", Numbered("p", round), "n1"));
  }
  ASSERT_TRUE(
      WaitFor([&] { return informer.cache().Versions() == ServerPodVersions(server_, "a"); }));
  EXPECT_EQ(informer.reflector().stats().lists, 1u) << "a cut stream must resume, not re-list";
  std::string last_watch_rv;
  for (const auto& request : server_.Requests())
    if (request.query.count("watch")) last_watch_rv = request.query.at("resourceVersion");
  EXPECT_FALSE(last_watch_rv.empty());
  EXPECT_NE(last_watch_rv, "0");
}

void ExpectRelistOnGone(FakeApiServer& server, Client& client, bool as_event) {
  server.SetGoneAsEvent(as_event);
  server.Put(kPodsPath, Pod("a", "p", "n1"));
  Informer<Json> informer(client, resources::kPods, "", KeepJson, FastWatch());
  std::atomic<int> deletes{0};
  informer.AddHandlers({nullptr, nullptr, [&](const Json&) { ++deletes; }});
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(Millis(5'000)));
  // While the informer cannot watch, history it has not seen is compacted away.
  server.RefuseWatches(true);
  server.CutWatches();
  server.Put(kPodsPath, Pod("a", "p2", "n1"));
  server.Remove(kPodsPath, "a", "p");
  server.Compact();
  server.RefuseWatches(false);
  ASSERT_TRUE(WaitFor([&] { return informer.cache().Versions() == ServerPodVersions(server); }));
  EXPECT_EQ(deletes.load(), 1);
  EXPECT_GE(informer.reflector().stats().gone, 1u);
  EXPECT_GE(informer.reflector().stats().lists, 2u);
}

TEST_F(InformerTest, RelistsWhenWatchAnswersGoneAsEvent) {
  ExpectRelistOnGone(server_, client_, /*as_event=*/true);
}

TEST_F(InformerTest, RelistsWhenWatchAnswersGoneAsStatus) {
  ExpectRelistOnGone(server_, client_, /*as_event=*/false);
}

TEST_F(InformerTest, ForcedGoneIsCountedAndRelisted) {
  server_.Put(kPodsPath, Pod("a", "p", "n1"));
  Informer<Json> informer(client_, resources::kPods, "", KeepJson, FastWatch());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(Millis(5'000)));
  ASSERT_TRUE(WaitFor([&] { return server_.open_watches() > 0; }));
  server_.PutAndCompact(kPodsPath, Pod("a", "q", "n1"));  // The open watch must end with 410.
  ASSERT_TRUE(WaitFor([&] { return informer.reflector().stats().lists >= 2; }));
  EXPECT_GE(informer.reflector().stats().gone, 1u);
  ASSERT_TRUE(WaitFor([&] { return informer.cache().Versions() == ServerPodVersions(server_); }));
}

TEST_F(InformerTest, BookmarksAdvanceTheResourceVersion) {
  server_.SetBookmarkInterval(Millis(30));
  Informer<Json> informer(client_, resources::kPods, "quiet", KeepJson, FastWatch());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(Millis(5'000)));
  for (int i = 0; i < 5; ++i) server_.Put(kPodsPath, Pod("busy", Numbered("p", i), "n1"));
  std::string server_rv = std::to_string(server_.resource_version());
  EXPECT_TRUE(WaitFor([&] { return informer.reflector().last_resource_version() == server_rv; }));
  EXPECT_EQ(informer.cache().size(), 0u);
  auto watch = server_.Requests().back();
  EXPECT_EQ(watch.query["allowWatchBookmarks"], "true");
}

TEST_F(InformerTest, SilentConnectionIsReplaced) {
  ListWatchOptions options = FastWatch();
  options.bookmarks = false;
  options.idle_timeout = Millis(150);
  Informer<Json> informer(client_, resources::kPods, "", KeepJson, options);
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(Millis(5'000)));
  EXPECT_TRUE(WaitFor([&] { return server_.watches_started() >= 3; }));
}

}  // namespace
}  // namespace gpupool::kube
