// The metrics and probe listeners on loopback: /metrics checked by the real
// promtool, /healthz, /readyz before and after the caches sync, each path on
// its own listener only, and bind failures.
#include "gpupool/metrics/http_endpoint.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <cstdlib>
#include <fstream>

#include "gpupool/metrics/controller_metrics.h"
#include "gpupool/metrics/readiness.h"
#include "loopback_client.h"
#include "sandbox_process.h"

namespace gpupool::metrics {
namespace {

using sandbox::testing::RunCommand;

using testing::kLoopbackAnyPort;

httplib::Result Fetch(int port, const std::string& path) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(2);
  client.set_read_timeout(5);
  return client.Get(path.c_str());
}

// A registry with every family holding at least one series.
std::shared_ptr<ControllerMetrics> BusyMetrics() {
  auto metrics = std::make_shared<ControllerMetrics>("0.1.0");
  CycleMetrics cycle;
  cycle.projects[{"train", "susan"}] = {2, 6.5, 4.5, 1};
  cycle.queues["train"] = {6, 6.5, 8};
  cycle.jobs_by_phase = {{"Running", 7}, {"Queued", 1}};
  cycle.admissions[{"train", "susan", "Train"}] = 1;
  cycle.preemptions[{"train", "susan", "reclaim"}] = 1;
  cycle.queue_waits = {{"susan", "Train", 42}};
  metrics->RecordCycle(cycle, {});
  metrics->OnRequest({"GET", 200, 0.003});
  metrics->OnRequest({"PATCH", 0, 1.5});
  metrics->OnWatchRestart("trainingjobs");
  return metrics;
}

bool HavePromtool() { return std::system("command -v promtool >/dev/null 2>&1") == 0; }

std::unique_ptr<BoundedHttpServer> ReadyProbes() {
  return ServeProbes(kLoopbackAnyPort, {[] { return std::string(); }, {}});
}

TEST(HttpEndpoint, MetricsPassPromtoolCheck) {
  if (!HavePromtool()) GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
  auto metrics = BusyMetrics();
  const auto endpoint = ServeMetrics(kLoopbackAnyPort, [metrics] { return metrics->Text(); });
  auto response = Fetch(endpoint->port(), "/metrics");
  ASSERT_TRUE(response) << httplib::to_string(response.error());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string path = ::testing::TempDir() + "gpupool_metrics.txt";
  std::ofstream(path) << response->body;
  const auto check = RunCommand("promtool check metrics < " + path + " 2>&1");
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_EQ(check.output, "") << check.output << "\n" << response->body;
  std::remove(path.c_str());
}

TEST(HttpEndpoint, HealthzAnswersWhileTheProcessLives) {
  const auto probes = ReadyProbes();
  auto response = Fetch(probes->port(), "/healthz");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
}

TEST(HttpEndpoint, ReadyzIs503UntilTheCachesSyncThen200) {
  std::atomic<bool> synced{false};
  const auto probes = ServeProbes(kLoopbackAnyPort, {[&] {
                                                       ReadinessState state;
                                                       state.caches_synced = synced;
                                                       return NotReadyReason(state);
                                                     },
                                                     {}});
  auto before = Fetch(probes->port(), "/readyz");
  ASSERT_TRUE(before);
  EXPECT_EQ(before->status, 503);
  EXPECT_EQ(before->body, "informer caches have not synced yet\n");
  synced = true;
  auto after = Fetch(probes->port(), "/readyz");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
}

TEST(HttpEndpoint, EachListenerServesOnlyItsOwnPaths) {
  const auto metrics = ServeMetrics(kLoopbackAnyPort, [] { return std::string(); });
  const auto probes = ReadyProbes();
  for (const char* path : {"/healthz", "/readyz", "/nothing"}) {
    auto response = Fetch(metrics->port(), path);
    ASSERT_TRUE(response) << path;
    EXPECT_EQ(response->status, 404) << path;
  }
  for (const char* path : {"/metrics", "/nothing"}) {
    auto response = Fetch(probes->port(), path);
    ASSERT_TRUE(response) << path;
    EXPECT_EQ(response->status, 404) << path;
  }
}

TEST(HttpEndpoint, PortInUseIsAnErrorNamingTheAddress) {
  const auto first = ReadyProbes();
  const BindAddress taken{"127.0.0.1", first->port()};
  try {
    ServeMetrics(taken, [] { return std::string(); });
    FAIL() << "bound a port already in use";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(taken.ToString()), std::string::npos) << error.what();
  }
}

TEST(BindAddress, ParsesTheFlagsForms) {
  EXPECT_EQ(ParseBindAddress(":8080")->ToString(), "0.0.0.0:8080");
  EXPECT_EQ(ParseBindAddress("127.0.0.1:0")->ToString(), "127.0.0.1:0");
  EXPECT_EQ(ParseBindAddress("localhost:9100")->ToString(), "localhost:9100");
  EXPECT_EQ(ParseBindAddress("[::1]:9100")->host, "::1");
  EXPECT_EQ(ParseBindAddress("[::1]:9100")->ToString(), "[::1]:9100");
  EXPECT_FALSE(ParseBindAddress("0").has_value());
  for (const char* bad : {"8080", "", ":", "host:", ":x", ":65536", ":-1", "a b:80", "[zz]:80",
                          "[]:80", "1.2.3.4:80x"})
    EXPECT_THROW(ParseBindAddress(bad), std::invalid_argument) << bad;
}

TEST(Readiness, NeedsSyncedCachesAndALeaderOrAHealthyStandby) {
  ReadinessState state;
  EXPECT_NE(NotReadyReason(state), "");
  state.caches_synced = true;
  EXPECT_EQ(NotReadyReason(state), "");  // Without leader election it leads.
  state.leader_election = true;
  state.identity = "a";
  EXPECT_EQ(NotReadyReason(state), "standby has not read the leader Lease yet");
  state.lease_holder = "b";
  EXPECT_EQ(NotReadyReason(state), "");  // A standby that sees the leader.
  state.lease_holder = "a";
  EXPECT_NE(NotReadyReason(state), "");  // Its own lease, not renewed.
  state.leading = true;
  EXPECT_EQ(NotReadyReason(state), "");
}

TEST(Readiness, MissingGpuReadingsAreDetailNeverUnready) {
  ReadinessState state;
  state.caches_synced = true;
  EXPECT_EQ(ReadyDetail(state), "");
  state.gpu_metrics_problem = "GET http://x/metrics: HTTP status 500";
  EXPECT_EQ(NotReadyReason(state), "");
  EXPECT_NE(ReadyDetail(state).find("gpu utilization unavailable: GET http://x/metrics"),
            std::string::npos);
}

}  // namespace
}  // namespace gpupool::metrics
