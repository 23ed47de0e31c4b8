// The probe and metrics listeners under clients that hold connections open:
// trickled headers, unfinished requests, oversized requests, more connections
// than the cap. Loopback only; every wait is bounded.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "gpupool/metrics/http_endpoint.h"
#include "loopback_client.h"

namespace gpupool::metrics {
namespace {

using std::chrono::milliseconds;
using testing::ConnectLoopback;
using testing::ReadUntilClosed;
using testing::SendAll;
using testing::SlowClients;
using testing::StatusOf;
using testing::TimedGet;

using testing::kLoopbackAnyPort;

std::unique_ptr<BoundedHttpServer> ReadyProbes() {
  return ServeProbes(kLoopbackAnyPort, {[] { return std::string(); }, {}});
}

// The kubelet's default probe timeout is 1 s.
constexpr milliseconds kProbeTimeout{1000};

TEST(SlowClients, TwoHundredTricklingConnectionsCannotStarveTheProbes) {
  const auto probes = ReadyProbes();
  SlowClients attack(probes->port(), 200, milliseconds(300));
  std::this_thread::sleep_for(milliseconds(600));  // Every attacker connected.
  for (int i = 0; i < 10; ++i) {
    const std::string path = i % 2 == 0 ? "/healthz" : "/readyz";
    const auto answer = TimedGet(probes->port(), path, kProbeTimeout);
    EXPECT_EQ(answer.status, 200) << path << " probe " << i << " after " << answer.seconds << " s";
    EXPECT_LT(answer.seconds, 1.0) << path << " probe " << i;
    std::this_thread::sleep_for(milliseconds(500));
  }
  // Past the cap the server closed attackers' connections, and they came back.
  EXPECT_GT(attack.connects(), 200);
}

TEST(SlowClients, TricklingConnectionsCannotStarveTheMetricsListenerEither) {
  const auto metrics = ServeMetrics(kLoopbackAnyPort, [] { return std::string("up 1\n"); });
  SlowClients attack(metrics->port(), 200, milliseconds(300));
  std::this_thread::sleep_for(milliseconds(600));
  for (int i = 0; i < 5; ++i) {
    const auto answer = TimedGet(metrics->port(), "/metrics", milliseconds(2000));
    EXPECT_EQ(answer.status, 200) << "scrape " << i << " after " << answer.seconds << " s";
    EXPECT_EQ(answer.body, "up 1\n");
    std::this_thread::sleep_for(milliseconds(300));
  }
}

TEST(SlowClients, AConnectionThatTricklesItsHeadersIsClosedAtTheDeadline) {
  const auto probes = ReadyProbes();
  const int fd = ConnectLoopback(probes->port(), kProbeTimeout);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "GET /healthz HTTP/1.1\r\n"));
  // A byte every 100 ms: each would restart a per-read timeout.
  bool closed = false;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 30 && !closed; ++i) {
    ::send(fd, "X", 1, MSG_NOSIGNAL);
    closed = ReadUntilClosed(fd, milliseconds(100)).closed;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(closed) << "still open after " << seconds << " s";
  EXPECT_LT(seconds, 2.0);
  ::close(fd);
}

TEST(SlowClients, AConnectionThatNeverFinishesItsHeadersIsClosedWithoutAnAnswer) {
  const auto probes = ReadyProbes();
  const int fd = ConnectLoopback(probes->port(), kProbeTimeout);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  const auto received = ReadUntilClosed(fd, milliseconds(3000));
  EXPECT_TRUE(received.closed);
  EXPECT_GT(received.seconds, 0.5);  // The deadline, not an eager close.
  EXPECT_LT(received.seconds, 2.0);
  EXPECT_EQ(received.bytes, "");
  ::close(fd);
}

TEST(SlowClients, AnOversizedRequestIsRefused) {
  const auto probes = ReadyProbes();
  const int fd = ConnectLoopback(probes->port(), kProbeTimeout);
  ASSERT_GE(fd, 0);
  const std::string filler(8 * 1024, 'a');
  ASSERT_TRUE(SendAll(fd, "GET /healthz HTTP/1.1\r\nX-Fill: " + filler + "\r\n\r\n"));
  const auto received = ReadUntilClosed(fd, milliseconds(3000));
  EXPECT_TRUE(received.closed);
  EXPECT_EQ(StatusOf(received.bytes), 431) << received.bytes;
  ::close(fd);
}

TEST(SlowClients, PastTheCapTheOldestConnectionIsClosed) {
  ServerLimits limits = ProbeLimits();
  limits.max_connections = 4;
  limits.request_deadline = std::chrono::seconds(30);  // Only the cap closes anything here.
  const auto probes = ServeProbes(kLoopbackAnyPort, {}, limits);
  std::vector<int> idle;
  for (int i = 0; i < 4; ++i) {
    idle.push_back(ConnectLoopback(probes->port(), kProbeTimeout));
    ASSERT_GE(idle.back(), 0);
    std::this_thread::sleep_for(milliseconds(20));  // Accepted in this order.
  }
  const auto answer = TimedGet(probes->port(), "/healthz", kProbeTimeout);
  EXPECT_EQ(answer.status, 200);
  EXPECT_TRUE(ReadUntilClosed(idle[0], milliseconds(1000)).closed) << "the oldest stays open";
  EXPECT_FALSE(ReadUntilClosed(idle[3], milliseconds(200)).closed) << "the newest was closed";
  for (const int fd : idle) ::close(fd);
}

TEST(SlowClients, UnknownPathsAndOtherMethodsAreRefused) {
  const auto probes = ReadyProbes();
  EXPECT_EQ(TimedGet(probes->port(), "/nothing", kProbeTimeout).status, 404);
  EXPECT_EQ(TimedGet(probes->port(), "/metrics", kProbeTimeout).status, 404);
  EXPECT_EQ(TimedGet(probes->port(), "/healthz?verbose", kProbeTimeout).status, 200);
  const int fd = ConnectLoopback(probes->port(), kProbeTimeout);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "POST /healthz HTTP/1.1\r\nContent-Length: 0\r\n\r\n"));
  EXPECT_EQ(StatusOf(ReadUntilClosed(fd, milliseconds(2000)).bytes), 405);
  ::close(fd);
  const int garbage = ConnectLoopback(probes->port(), kProbeTimeout);
  ASSERT_GE(garbage, 0);
  ASSERT_TRUE(SendAll(garbage, "hello\r\n\r\n"));
  EXPECT_EQ(StatusOf(ReadUntilClosed(garbage, milliseconds(2000)).bytes), 400);
  ::close(garbage);
}

}  // namespace
}  // namespace gpupool::metrics
