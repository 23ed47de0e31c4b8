// Event recorder limits: reportingInstance, note length, bounded shutdown
// drain, and per-object rate limits that survive many other objects.
#include "gpupool/kube/event_recorder.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace gpupool::kube {
namespace {

using namespace gpupool::kube::testing;

constexpr char kEvents[] = "/apis/events.k8s.io/v1/events";

ObjectReference Job(const std::string& name) {
  return {"gpupool.dev/v1alpha1", "TrainingJob", "team-a", name, "uid-" + name};
}

Json OnlyEvent(FakeApiServer& server) {
  auto events = server.Objects(kEvents);
  EXPECT_EQ(events.size(), 1u);
  return events.empty() ? Json() : events.begin()->second;
}

TEST(EventRecorderLimits, ReportingInstanceIsTheHostNameUnlessGiven) {
  ASSERT_FALSE(HostName().empty());
  FakeApiServer server;
  Client client(PlainConfig(server), FastOptions());
  {
    EventRecorder recorder(client);
    EXPECT_EQ(recorder.reporting_instance(), HostName());
    recorder.Record(Job("j"), "Normal", "Started", "Start", "running");
    ASSERT_TRUE(recorder.Flush(Millis(5'000)));
    EXPECT_EQ(OnlyEvent(server)["reportingInstance"], HostName());
  }
  EventRecorder named(client, {.reporting_instance = "gpupool-controller-7d9f"});
  EXPECT_EQ(named.reporting_instance(), "gpupool-controller-7d9f");
}

TEST(EventRecorderLimits, NotesAreCutToOneKibibyteOnACharacterBoundary) {
  EXPECT_EQ(TruncateUtf8("abc", 3), "abc");
  EXPECT_EQ(TruncateUtf8("ab\xC3\xA9", 3), "ab");                       // é is 2 bytes.
  EXPECT_EQ(TruncateUtf8("a\xE2\x82\xAC", 3), "a");                     // € is 3 bytes.
  EXPECT_EQ(TruncateUtf8("\xF0\x9F\x99\x82z", 4), "\xF0\x9F\x99\x82");  // 4-byte emoji kept whole.
  FakeApiServer server;
  Client client(PlainConfig(server), FastOptions());
  EventRecorder recorder(client);
  std::string message(kMaxEventNoteBytes - 1, 'a');
  message += "\xC3\xA9 and more";
  recorder.Record(Job("j"), "Warning", "Waiting", "Admit", message);
  ASSERT_TRUE(recorder.Flush(Millis(5'000)));
  std::string note = OnlyEvent(server)["note"];
  EXPECT_EQ(note, std::string(kMaxEventNoteBytes - 1, 'a'));
}

TEST(EventRecorderLimits, StopSendsWhatIsQueued) {
  FakeApiServer server;
  Client client(PlainConfig(server), FastOptions());
  EventRecorder recorder(client);
  for (int i = 0; i < 3; ++i)
    recorder.Record(Job(Numbered("j", i)), "Normal", "Started", "Start", "ok");
  recorder.Stop();
  EXPECT_EQ(server.Objects(kEvents).size(), 3u);
  EXPECT_EQ(recorder.stats().dropped_at_shutdown, 0u);
  recorder.Record(Job("late"), "Normal", "Started", "Start", "ok");
  EXPECT_EQ(recorder.stats().dropped, 1u) << "recording after Stop drops and counts";
}

TEST(EventRecorderLimits, StopDrainsForAtMostTheDrainTimeout) {
  FakeApiServer server;
  Client client(PlainConfig(server), FastOptions());
  EventRecorder recorder(client, {.drain_timeout = Millis(400)});
  recorder.Record(Job("first"), "Normal", "Started", "Start", "ok");
  ASSERT_TRUE(recorder.Flush(Millis(5'000)));  // Discovery done before the server slows.
  server.SetResponseDelay(Millis(250));
  for (int i = 0; i < 20; ++i)
    recorder.Record(Job(Numbered("j", i)), "Normal", "Started", "Start", "ok");
  auto stopping = Clock::now();
  recorder.Stop();
  EXPECT_LT(Clock::now() - stopping, Millis(400 + 300));
  EventRecorderStats stats = recorder.stats();
  EXPECT_GE(stats.dropped_at_shutdown, 15u);
  EXPECT_EQ(stats.created + stats.dropped, 21u) << "every event is sent or counted";
}

TEST(EventRecorderLimits, HotObjectStaysLimitedWhileManyOthersComeAndGo) {
  FakeApiServer server;
  Client client(PlainConfig(server), FastOptions());
  EventRecorder recorder(
      client, {.per_object_qps = 0.001, .per_object_burst = 3, .max_tracked_objects = 4});
  for (int i = 0; i < 3; ++i)
    recorder.Record(Job("hot"), "Normal", "Step", "Run", Numbered("s", i));
  for (int i = 0; i < 10; ++i) {
    recorder.Record(Job(Numbered("other-", i)), "Normal", "Step", "Run", "once");
    recorder.Record(Job("hot"), "Normal", "Step", "Run", Numbered("more ", i));
  }
  ASSERT_TRUE(recorder.Flush(Millis(5'000)));
  EXPECT_EQ(recorder.stats().created, 13u);
  EXPECT_EQ(recorder.stats().dropped, 10u) << "the hot object's limit was never reset";
}

}  // namespace
}  // namespace gpupool::kube
