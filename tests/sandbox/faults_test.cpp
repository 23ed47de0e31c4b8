// Every fault injection flag, seeded and therefore reproducible.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "sandbox_process.h"

namespace gpupool::sandbox::testing {
namespace {

const std::string kPath = "/api/v1/namespaces/default/configmaps";

std::vector<int> Statuses(httplib::Client& client, int count) {
  std::vector<int> statuses;
  for (int i = 0; i < count; ++i) {
    auto response = client.Get(kPath.c_str());
    statuses.push_back(response ? response->status : -1);
  }
  return statuses;
}

TEST(FaultsTest, ErrorRatePerVerbWithRetryAfter) {
  SandboxProcess sandbox({"--plain-http", "--fault-error-rate", "list=1", "--fault-error-codes",
                          "429", "--fault-retry-after", "3"});
  auto client = sandbox.Http();
  auto response = client->Get(kPath.c_str());
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 429);
  EXPECT_EQ(response->get_header_value("Retry-After"), "3");
  EXPECT_EQ(Json::parse(response->body)["reason"], "TooManyRequests");
  // Other verbs are untouched.
  EXPECT_EQ(client->Get((kPath + "/missing").c_str())->status, 404);
}

TEST(FaultsTest, ErrorsAreReproducibleForASeed) {
  const std::vector<std::string> flags = {"--plain-http", "--fault-error-rate", "0.5",
                                          "--fault-seed", "7"};
  std::vector<int> first, second;
  {
    SandboxProcess sandbox(flags);
    first = Statuses(*sandbox.Http(), 40);
  }
  {
    SandboxProcess sandbox(flags);
    second = Statuses(*sandbox.Http(), 40);
  }
  EXPECT_EQ(first, second);
  const auto count = [&](int code) { return std::count(first.begin(), first.end(), code); };
  EXPECT_GT(count(200), 5);
  EXPECT_GT(count(500) + count(503) + count(429), 5);
  EXPECT_EQ(count(200) + count(500) + count(503) + count(429), 40);
}

TEST(FaultsTest, AddedLatency) {
  SandboxProcess sandbox({"--plain-http", "--fault-latency", "get=300"});
  auto client = sandbox.Http();
  auto start = std::chrono::steady_clock::now();
  client->Get((kPath + "/missing").c_str());
  const double get =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  start = std::chrono::steady_clock::now();
  client->Get(kPath.c_str());
  const double list =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(get, 0.3);
  EXPECT_LT(list, 0.25);
}

TEST(FaultsTest, WatchStreamsAreCut) {
  SandboxProcess sandbox({"--plain-http", "--fault-watch-cut", "1"});
  auto client = sandbox.Http();
  const auto start = std::chrono::steady_clock::now();
  auto response = client->Get((kPath + "?watch=true&timeoutSeconds=30").c_str());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_GE(seconds, 0.9);
  EXPECT_LT(seconds, 5);
}

TEST(FaultsTest, ForcedCompactionExpiresOldVersions) {
  SandboxProcess sandbox({"--plain-http", "--fault-compact", "0.5"});
  auto client = sandbox.Http();
  auto response = client->Get(kPath.c_str());
  const std::string rv = Json::parse(response->body)["metadata"]["resourceVersion"];
  client->Post(kPath.c_str(), R"({"metadata":{"name":"x"}})", "application/json");
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  response = client->Get((kPath + "?watch=true&resourceVersion=" + rv).c_str());
  ASSERT_TRUE(response);
  const Json event = Json::parse(response->body.substr(0, response->body.find('\n')));
  EXPECT_EQ(event["type"], "ERROR");
  EXPECT_EQ(event["object"]["code"], 410);
}

TEST(FaultsTest, DroppedConnections) {
  SandboxProcess sandbox({"--plain-http", "--fault-drop-rate", "1"});
  auto client = sandbox.Http();
  auto response = client->Get(kPath.c_str());
  // The body stops half way and the connection closes: the client sees an error.
  EXPECT_TRUE(!response || response->body.size() < 40) << (response ? response->body : "");
}

}  // namespace
}  // namespace gpupool::sandbox::testing
