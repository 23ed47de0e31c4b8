// Watches against the sandbox's own history window, compactions and bookmark
// timer (the flags a real server has no equal of): expired versions, resumes,
// bursts and the bookmark before a timeout. What every backend answers alike
// is in tests/backends/fidelity_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <thread>

#include "fidelity_util.h"

namespace gpupool::sandbox::testing {
namespace {

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

}  // namespace
}  // namespace gpupool::sandbox::testing
