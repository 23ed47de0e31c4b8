#include <gtest/gtest.h>

#include "gpupool/kube/errors.h"
#include "gpupool/kube/watch.h"

namespace gpupool::kube {
namespace {

const std::string kStream =
    R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"},"data":{"x":"}{\"\\"}}})"
    "\n"
    R"({"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"2"},"list":[{"k":[1,2]}]}})"
    "\r\n\n"
    R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"3"}}})"
    R"({"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"4"}}})"
    "\n";

std::vector<WatchEvent> FeedInPieces(const std::string& stream, std::size_t piece) {
  WatchDecoder decoder;
  std::vector<WatchEvent> events;
  for (std::size_t i = 0; i < stream.size(); i += piece)
    decoder.Feed(std::string_view(stream).substr(i, piece),
                 [&](WatchEvent&& event) { events.push_back(std::move(event)); });
  EXPECT_EQ(decoder.buffered(), 0u);
  return events;
}

TEST(WatchDecoder, FramesSplitAtEveryByteDecodeTheSame) {
  for (std::size_t piece : {std::size_t{1}, std::size_t{2}, std::size_t{7}, kStream.size()}) {
    std::vector<WatchEvent> events = FeedInPieces(kStream, piece);
    ASSERT_EQ(events.size(), 4u) << "piece size " << piece;
    EXPECT_EQ(events[0].type, EventType::kAdded);
    EXPECT_EQ(events[0].object["data"]["x"], "}{\"\\");
    EXPECT_EQ(events[1].type, EventType::kModified);
    EXPECT_EQ(events[1].object["list"][0]["k"][1], 2);
    EXPECT_EQ(events[2].type, EventType::kBookmark);
    EXPECT_EQ(events[3].type, EventType::kDeleted);
    EXPECT_EQ(events[3].object["metadata"]["resourceVersion"], "4");
  }
}

TEST(WatchDecoder, KeepsPartialFrameUntilComplete) {
  WatchDecoder decoder;
  int count = 0;
  auto on_event = [&](WatchEvent&&) { ++count; };
  decoder.Feed(R"({"type":"ADDED","object":{"metadata":{"name":"a"}})", on_event);
  EXPECT_EQ(count, 0);
  EXPECT_GT(decoder.buffered(), 0u);
  decoder.Feed("}\n", on_event);
  EXPECT_EQ(count, 1);
  decoder.Feed(R"({"type":"ERROR","object":{"kind":"Status","code":410}})", on_event);
  EXPECT_EQ(count, 2);
}

TEST(WatchDecoder, CanLeaveManagedFieldsOut) {
  const std::string frame =
      R"({"type":"MODIFIED","object":{"metadata":{"name":"a","managedFields":[{"manager":"m"}]},)"
      R"("data":{"managedFields":"kept"}}})";
  for (bool drop : {false, true}) {
    WatchDecoder decoder(drop ? std::vector<json::MemberPath>{{"metadata", "managedFields"}}
                              : std::vector<json::MemberPath>{});
    std::vector<WatchEvent> events;
    decoder.Feed(frame, [&](WatchEvent&& event) { events.push_back(std::move(event)); });
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].type, EventType::kModified);
    EXPECT_EQ(events[0].object["metadata"]["name"], "a");
    EXPECT_EQ(events[0].object["metadata"].contains("managedFields"), !drop);
    EXPECT_EQ(events[0].object["data"]["managedFields"], "kept");
  }
}

TEST(WatchDecoder, RejectsMalformedFrames) {
  auto noop = [](WatchEvent&&) {};
  for (bool drop : {false, true}) {
    for (const char* bad : {"garbage\n", R"({"type":"ADDED"})", R"({"type":"NOPE","object":{}})",
                            R"({"type":"ADDED","object":[]})", R"({"type":1,"object":{}})",
                            R"({"type":"ADDED","object":{"a":tru}})"}) {
      WatchDecoder decoder(drop ? std::vector<json::MemberPath>{{"metadata", "managedFields"}}
                                : std::vector<json::MemberPath>{});
      try {
        decoder.Feed(bad, noop);
        ADD_FAILURE() << "accepted " << bad;
      } catch (const ApiError& e) {
        EXPECT_EQ(e.reason(), Reason::kDecode) << bad;
      }
    }
  }
}

}  // namespace
}  // namespace gpupool::kube
