#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <set>

#include "gpupool/kube/event_recorder.h"
#include "gpupool/kube/leader_election.h"
#include "test_util.h"

namespace gpupool::kube {
namespace {

using namespace gpupool::kube::testing;

constexpr Millis kLease{1'000}, kRenew{600}, kRetry{150};
// How long a loaded machine (2 cores, parallel builds) may stall a thread.
// Only bounds on how *late* something happens get it; bounds that are safety
// properties (no takeover too early, no two leaders) never do.
constexpr Millis kSchedulingSlack{400};

LeaderElectionConfig Candidate(const std::string& identity) {
  LeaderElectionConfig config;
  config.lease_namespace = "gpupool-system";
  config.lease_name = "gpupool-controller";
  config.identity = identity;
  config.lease_duration = kLease;
  config.renew_deadline = kRenew;
  config.retry_period = kRetry;
  return config;
}

// Samples both candidates until stopped; counts moments with two leaders.
struct OverlapMonitor {
  OverlapMonitor(LeaderElector& a, LeaderElector& b)
      : thread([&a, &b, this] {
          while (!stop) {
            if (a.IsLeader() && b.IsLeader()) ++overlaps;
            std::this_thread::sleep_for(Millis(1));
          }
        }) {}
  ~OverlapMonitor() {
    stop = true;
    thread.join();
  }
  std::atomic<bool> stop{false};
  std::atomic<int> overlaps{0};
  std::thread thread;
};

class LeaderElectionTest : public ::testing::Test {
 protected:
  FakeApiServer server_;
  Client client_a_{PlainConfig(server_), FastOptions()};
  Client client_b_{PlainConfig(server_), FastOptions()};
};

TEST_F(LeaderElectionTest, OneLeaderAtATimeAndTakeoverAfterKill) {
  LeaderElector a(client_a_, Candidate("a"));
  LeaderElector b(client_b_, Candidate("b"));
  OverlapMonitor monitor(a, b);
  a.Start();
  ASSERT_TRUE(WaitFor([&] { return a.IsLeader(); }));
  b.Start();
  std::this_thread::sleep_for(kLease * 2);  // b keeps seeing a's renewals.
  EXPECT_TRUE(a.IsLeader());
  EXPECT_FALSE(b.IsLeader());
  EXPECT_EQ(b.observed_holder(), "a");
  a.Abandon();  // Killed: no release.
  auto killed = Clock::now();
  ASSERT_TRUE(WaitFor([&] { return b.IsLeader(); }, kLease * 4));
  auto takeover = Clock::now() - killed;
  EXPECT_GE(takeover, kLease - kRetry * 2);
  // b saw a's last renewal at most one (jittered) retry period after it was
  // written, then waits one lease duration and at most one more retry period.
  EXPECT_LE(takeover, kLease + kRetry * 5 / 2 + kSchedulingSlack);
  EXPECT_EQ(monitor.overlaps.load(), 0);
  auto lease =
      server_.Objects("/apis/coordination.k8s.io/v1/leases")["gpupool-system/gpupool-controller"];
  EXPECT_EQ(lease["spec"]["holderIdentity"], "b");
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 1);
  EXPECT_EQ(lease["spec"]["leaseDurationSeconds"], 1);
}

TEST_F(LeaderElectionTest, CleanShutdownReleasesTheLease) {
  std::atomic<int> stopped{0};
  LeaderElectionConfig config_a = Candidate("a");
  config_a.on_stopped_leading = [&] { ++stopped; };
  LeaderElector a(client_a_, config_a);
  LeaderElector b(client_b_, Candidate("b"));
  a.Start();
  ASSERT_TRUE(WaitFor([&] { return a.IsLeader(); }));
  b.Start();
  std::this_thread::sleep_for(kRetry * 2);
  a.Stop();
  EXPECT_EQ(stopped.load(), 1);
  auto released = Clock::now();
  ASSERT_TRUE(WaitFor([&] { return b.IsLeader(); }, kLease * 3));
  EXPECT_LT(Clock::now() - released, kLease) << "a released lease is taken without waiting";
}

TEST_F(LeaderElectionTest, StopsActingWhenRenewalFails) {
  std::atomic<int> started{0}, stopped{0};
  LeaderElectionConfig config = Candidate("a");
  config.on_started_leading = [&] { ++started; };
  config.on_stopped_leading = [&] { ++stopped; };
  LeaderElector a(client_a_, config);
  a.Start();
  ASSERT_TRUE(WaitFor([&] { return a.IsLeader(); }));
  server_.FailNext(100'000, 500);
  auto failing = Clock::now();
  ASSERT_TRUE(WaitFor([&] { return !a.IsLeader(); }, kLease * 2));
  // IsLeader() turns false at the renew deadline by the clock, not by a
  // thread's schedule; what matters is that it happens before the lease
  // expires and a follower may take over.
  EXPECT_LT(Clock::now() - failing, kLease) << "must stop before the lease expires";
  EXPECT_TRUE(WaitFor([&] { return stopped == 1; }));
  EXPECT_EQ(started.load(), 1);
}

TEST_F(LeaderElectionTest, MalformedLeaseNeitherCrashesNorLeads) {
  client_a_.Create(resources::kLeases, "gpupool-system", Json::parse(R"({
      "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
      "metadata": {"name": "gpupool-controller", "namespace": "gpupool-system"},
      "spec": {"holderIdentity": 5, "leaseDurationSeconds": "long"}})"));
  LeaderElector a(client_a_, Candidate("a"));
  a.Start();
  std::this_thread::sleep_for(kRetry * 4);
  EXPECT_FALSE(a.IsLeader());
  a.Stop();
}

std::string RenewTime(FakeApiServer& server) {
  auto leases = server.Objects("/apis/coordination.k8s.io/v1/leases");
  auto it = leases.find("gpupool-system/gpupool-controller");
  return it == leases.end() ? std::string() : it->second["spec"].value("renewTime", "");
}

// Counts distinct renewTime values seen over `period`.
int RenewalsDuring(FakeApiServer& server, Millis period) {
  std::set<std::string> seen;
  auto end = Clock::now() + period;
  while (Clock::now() < end) {
    seen.insert(RenewTime(server));
    std::this_thread::sleep_for(Millis(10));
  }
  return static_cast<int>(seen.size());
}

TEST_F(LeaderElectionTest, BlockedCallbackNeitherStopsRenewalNorDelaysStop) {
  // Shared with the callback, which may outlive this test's stack (see Stop).
  auto release = std::make_shared<std::atomic<bool>>(false);
  auto stopped = std::make_shared<std::atomic<int>>(0);
  LeaderElectionConfig config = Candidate("a");
  config.on_started_leading = [release] {
    while (!*release) std::this_thread::sleep_for(Millis(5));
  };
  config.on_stopped_leading = [stopped] { ++*stopped; };
  config.callback_stop_wait = Millis(200);
  LeaderElector a(client_a_, config);
  a.Start();
  ASSERT_TRUE(WaitFor([&] { return a.IsLeader(); }));
  EXPECT_GE(RenewalsDuring(server_, kLease), 4) << "renewal must go on";
  EXPECT_TRUE(a.IsLeader());
  auto stopping = Clock::now();
  a.Stop();
  EXPECT_LT(Clock::now() - stopping, Millis(200) + kSchedulingSlack);
  EXPECT_EQ(stopped->load(), 1) << "stop is reported while the start callback still runs";
  *release = true;
}

TEST_F(LeaderElectionTest, ThrowingCallbacksAreCountedAndRenewalGoesOn) {
  LeaderElectionConfig config = Candidate("a");
  config.on_started_leading = [] { throw std::runtime_error("controller failed to start"); };
  config.on_stopped_leading = [] { throw 7; };
  LeaderElector a(client_a_, config);
  a.Start();
  ASSERT_TRUE(WaitFor([&] { return a.IsLeader(); }));
  EXPECT_GE(RenewalsDuring(server_, kLease), 4);
  EXPECT_TRUE(a.IsLeader());
  a.Stop();
  EXPECT_EQ(a.callback_failures(), 2u);
}

TEST_F(LeaderElectionTest, TermLostBeforeItsStartWasReportedReportsNeither) {
  auto release = std::make_shared<std::atomic<bool>>(false);
  auto started = std::make_shared<std::atomic<int>>(0);
  auto stopped = std::make_shared<std::atomic<int>>(0);
  LeaderElectionConfig config = Candidate("a");
  config.on_started_leading = [release, started] {
    ++*started;
    while (!*release) std::this_thread::sleep_for(Millis(5));  // Term 1's start never ends.
  };
  config.on_stopped_leading = [stopped] { ++*stopped; };
  LeaderElector a(client_a_, config);
  a.Start();
  ASSERT_TRUE(WaitFor([&] { return a.IsLeader() && *started == 1; }));
  server_.FailNext(1'000'000, 500);
  ASSERT_TRUE(WaitFor([&] { return !a.IsLeader() && *stopped == 1; }));
  server_.ClearFailures();
  ASSERT_TRUE(WaitFor([&] { return a.IsLeader(); }));  // Term 2: its start waits behind term 1's.
  server_.FailNext(1'000'000, 500);
  ASSERT_TRUE(WaitFor([&] { return !a.IsLeader(); }));
  // IsLeader() turns false by the clock; the renew loop ends the term (and
  // withdraws its start) at its next failed attempt, well within this.
  std::this_thread::sleep_for(kRenew);
  *release = true;
  std::this_thread::sleep_for(kRetry * 2);
  EXPECT_EQ(started->load(), 1) << "term 2's start was withdrawn when term 2 ended";
  EXPECT_EQ(stopped->load(), 1) << "so its stop is not reported either";
  a.Stop();
}

// Runs only in the child process started by TakeoverAfterHolderProcessIsKilled:
// leads through the server named by $KUBE_TEST_LEASE_SERVER until killed
// (bounded at 30 s in case nobody does).
TEST(LeaderCandidateProcess, DISABLED_LeadUntilKilled) {
  const char* server = std::getenv("KUBE_TEST_LEASE_SERVER");
  ASSERT_NE(server, nullptr);
  RestConfig config;
  config.server = server;
  Client client(config, FastOptions());
  LeaderElector elector(client, Candidate("process-a"));
  elector.Start();
  std::this_thread::sleep_for(Millis(30'000));
}

TEST_F(LeaderElectionTest, TakeoverAfterHolderProcessIsKilled) {
  setenv("KUBE_TEST_LEASE_SERVER", server_.url().c_str(), 1);
  pid_t child = fork();
  if (child == 0) {
    execl("/proc/self/exe", "kube_tests", "--gtest_also_run_disabled_tests",
          "--gtest_filter=LeaderCandidateProcess.DISABLED_LeadUntilKilled", nullptr);
    _exit(127);
  }
  ASSERT_GT(child, 0);
  auto holder = [&] {
    auto leases = server_.Objects("/apis/coordination.k8s.io/v1/leases");
    auto it = leases.find("gpupool-system/gpupool-controller");
    return it == leases.end() ? std::string() : it->second["spec"].value("holderIdentity", "");
  };
  bool child_leads = WaitFor([&] { return holder() == "process-a"; });
  LeaderElector b(client_b_, Candidate("b"));
  if (child_leads) {
    b.Start();
    std::this_thread::sleep_for(kLease * 2);
    EXPECT_FALSE(b.IsLeader()) << "the child process still renews";
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(child_leads) << "the child process never became leader";
  auto killed = Clock::now();
  ASSERT_TRUE(WaitFor([&] { return b.IsLeader(); }, kLease * 4));
  auto takeover = std::chrono::duration_cast<Millis>(Clock::now() - killed);
  EXPECT_LE(takeover, kLease + kRetry * 5 / 2 + kSchedulingSlack);
  RecordProperty("takeover_ms", std::to_string(takeover.count()));
  EXPECT_EQ(holder(), "b");
}

TEST(LeaderElectionConfig, RejectsInconsistentDurations) {
  FakeApiServer server;
  Client client(PlainConfig(server), FastOptions());
  LeaderElectionConfig config = Candidate("a");
  config.renew_deadline = kLease;
  EXPECT_THROW(LeaderElector(client, config), std::invalid_argument);
  config = Candidate("");
  EXPECT_THROW(LeaderElector(client, config), std::invalid_argument);
}

ObjectReference JobRef() {
  return {"gpupool.dev/v1alpha1", "TrainingJob", "team-a", "job-1", "uid-job-1"};
}

TEST(EventRecorder, CreatesEventsV1AndAggregatesRepeats) {
  FakeApiServer server;
  Client client(PlainConfig(server), FastOptions());
  EventRecorder recorder(client, {.reporting_instance = "pod-1"});
  for (int i = 0; i < 3; ++i)
    recorder.Record(JobRef(), "Warning", "Waiting", "Admit", "project susan is at its limit");
  recorder.Record(JobRef(), "Normal", "Admitted", "Admit", "admitted");
  ASSERT_TRUE(recorder.Flush(Millis(5'000)));
  auto events = server.Objects("/apis/events.k8s.io/v1/events");
  ASSERT_EQ(events.size(), 2u);
  bool found_series = false;
  for (const auto& [key, event] : events) {
    EXPECT_EQ(event["regarding"]["name"], "job-1");
    EXPECT_EQ(event["reportingController"], "gpupool.dev/controller");
    if (event["reason"] == "Waiting") {
      found_series = true;
      EXPECT_EQ(event["series"]["count"], 3);
      EXPECT_EQ(event["note"], "project susan is at its limit");
    }
  }
  EXPECT_TRUE(found_series);
  EXPECT_EQ(recorder.stats().created, 2u);
  EXPECT_EQ(recorder.stats().aggregated, 2u);
  EXPECT_TRUE(recorder.stats().using_events_v1);
}

TEST(EventRecorder, FallsBackToCoreV1) {
  FakeApiServer server;
  server.ServeEventsV1(false);
  Client client(PlainConfig(server), FastOptions());
  EventRecorder recorder(client);
  recorder.Record(JobRef(), "Normal", "Started", "Start", "running");
  recorder.Record(JobRef(), "Normal", "Started", "Start", "running");
  recorder.Record({"v1", "Node", "", "node-1", ""}, "Warning", "Full", "Place", "no GPUs left");
  ASSERT_TRUE(recorder.Flush(Millis(5'000)));
  auto events = server.Objects("/api/v1/events");
  ASSERT_EQ(events.size(), 2u);
  for (const auto& [key, event] : events) {
    if (event["reason"] == "Started") {
      EXPECT_EQ(event["count"], 2);
      EXPECT_EQ(event["involvedObject"]["kind"], "TrainingJob");
    } else {
      EXPECT_EQ(event["metadata"]["namespace"], "default");  // Cluster-scoped object.
    }
  }
  EXPECT_FALSE(recorder.stats().using_events_v1);
}

TEST(EventRecorder, RateLimitsPerObject) {
  FakeApiServer server;
  Client client(PlainConfig(server), FastOptions());
  EventRecorder recorder(client, {.per_object_qps = 0.001, .per_object_burst = 3});
  for (int i = 0; i < 10; ++i)
    recorder.Record(JobRef(), "Normal", "Step", "Run", Numbered("step ", i));
  recorder.Record({"v1", "Pod", "team-a", "other", ""}, "Normal", "Step", "Run", "other object");
  ASSERT_TRUE(recorder.Flush(Millis(5'000)));
  EXPECT_EQ(server.Objects("/apis/events.k8s.io/v1/events").size(), 4u);
  EXPECT_EQ(recorder.stats().dropped, 7u);
}

}  // namespace
}  // namespace gpupool::kube
