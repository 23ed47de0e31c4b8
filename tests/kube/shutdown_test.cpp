// Shutdown: cancelling a transport ends requests blocked on a slow server,
// long-poll watches, retry sleeps and reflectors at once, with kCancelled.
#include <gtest/gtest.h>

#include <future>

#include "gpupool/kube/errors.h"
#include "gpupool/kube/watch.h"
#include "test_util.h"

namespace gpupool::kube {
namespace {

using namespace gpupool::kube::testing;

// Loose enough for a loaded 2-core machine; the poll interval is 20 ms.
constexpr Millis kPromptly{250};

// Runs `call` on another thread, cancels `transport` after it had time to
// block, and returns how long the call took to end after the cancel and the
// reason of the error it ended with (kUnknown if it returned normally).
std::pair<Millis, Reason> CancelWhileBlocked(Transport& transport,
                                             const std::function<void()>& call) {
  auto ended = std::async(std::launch::async, [&] {
    try {
      call();
    } catch (const ApiError& error) {
      return std::make_pair(Clock::now(), error.reason());
    }
    return std::make_pair(Clock::now(), Reason::kUnknown);
  });
  std::this_thread::sleep_for(Millis(150));
  auto cancelled_at = Clock::now();
  transport.Cancel();
  auto [end, reason] = ended.get();
  return {std::chrono::duration_cast<Millis>(end - cancelled_at), reason};
}

TEST(Shutdown, CancelEndsARequestBlockedOnASlowServer) {
  FakeApiServer server;
  server.SetResponseDelay(Millis(10'000));
  Client client(PlainConfig(server), FastOptions());
  auto [took, reason] =
      CancelWhileBlocked(client.transport(), [&] { client.Get(resources::kPods, "a", "p"); });
  EXPECT_EQ(reason, Reason::kCancelled);
  EXPECT_LT(took, kPromptly);
}

TEST(Shutdown, CancelEndsARetrySleep) {
  FakeApiServer server;
  server.FailNext(1, 503, /*retry_after=*/30);
  TransportOptions options = FastOptions();
  options.max_retry_after = Millis(30'000);
  Client client(PlainConfig(server), options);
  auto [took, reason] =
      CancelWhileBlocked(client.transport(), [&] { client.Get(resources::kPods, "a", "p"); });
  EXPECT_EQ(reason, Reason::kCancelled);
  EXPECT_LT(took, kPromptly);
  EXPECT_EQ(server.Requests().size(), 1u) << "no attempt after the cancel";
}

TEST(Shutdown, CancelEndsALongPollWatch) {
  FakeApiServer server;
  Client client(PlainConfig(server), FastOptions());
  std::atomic<bool> never{false};
  auto [took, reason] = CancelWhileBlocked(client.transport(), [&] {
    client.transport().Stream(
        {"GET", "/api/v1/pods?watch=true&resourceVersion=100"},
        [](std::string_view) { return true; }, never, Millis(60'000));
  });
  EXPECT_EQ(reason, Reason::kCancelled);
  EXPECT_LT(took, kPromptly);
}

TEST(Shutdown, CancelEndsAClientSideRateLimitWait) {
  FakeApiServer server;
  TransportOptions options = FastOptions();
  options.qps = 0.1;  // After the burst, one request per 10 s.
  options.burst = 1;
  Client client(PlainConfig(server), options);
  client.Request("GET", "/api/v1");
  auto [took, reason] =
      CancelWhileBlocked(client.transport(), [&] { client.Request("GET", "/api/v1"); });
  EXPECT_EQ(reason, Reason::kCancelled);
  EXPECT_LT(took, kPromptly);
}

TEST(Shutdown, RequestsAfterCancelFailAtOnceWithoutReachingTheServer) {
  FakeApiServer server;
  Client client(PlainConfig(server), FastOptions());
  client.Cancel();
  try {
    client.Get(resources::kPods, "a", "p");
    ADD_FAILURE() << "a cancelled client sent a request";
  } catch (const ApiError& error) {
    EXPECT_TRUE(IsCancelled(error)) << error.what();
    EXPECT_FALSE(error.IsRetryable());
  }
  EXPECT_TRUE(server.Requests().empty());
}

TEST(Shutdown, OneTokenCancelsEveryTransportSharingIt) {
  FakeApiServer server;
  TransportOptions options = FastOptions();
  options.cancel = std::make_shared<CancelToken>();
  Client first(PlainConfig(server), options);
  Client second(PlainConfig(server), options);
  options.cancel->Cancel();
  EXPECT_TRUE(first.transport().cancelled());
  EXPECT_TRUE(second.transport().cancelled());
  EXPECT_THROW(second.Get(resources::kPods, "a", "p"), ApiError);
}

struct CountingSink : ListWatchSink {
  void Replace(std::vector<Json>&&, const std::string&) override {}
  void Apply(WatchEvent&&) override {}
};

TEST(Shutdown, CancelEndsAReflector) {
  FakeApiServer server;
  Client client(PlainConfig(server), FastOptions());
  CountingSink sink;
  ListWatchOptions options;
  options.idle_timeout = Millis(60'000);
  Reflector reflector(client, resources::kPods, "", options, sink);
  std::atomic<bool> never{false};
  auto [took, reason] = CancelWhileBlocked(client.transport(), [&] { reflector.Run(never); });
  EXPECT_EQ(reason, Reason::kUnknown) << "Run returns normally";
  EXPECT_LT(took, kPromptly);
}

}  // namespace
}  // namespace gpupool::kube
