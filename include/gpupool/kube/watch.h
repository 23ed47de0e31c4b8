// Watching: a streaming decoder for watch bodies, and the reflector loop that
// lists, watches from the list's resourceVersion, resumes after drops from the
// last resourceVersion seen, and re-lists when the server answers 410.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/json/without.h"
#include "gpupool/kube/client.h"

namespace gpupool::kube {

enum class EventType { kAdded, kModified, kDeleted, kBookmark, kError };

struct WatchEvent {
  EventType type;
  Json object;
};

// Splits a watch body into events. Frames are JSON objects, normally one per
// line; they may arrive split at any byte, so the decoder keeps the partial
// frame and its scanning state between calls.
class WatchDecoder {
 public:
  using Callback = std::function<void(WatchEvent&&)>;

  // `unread`: members of the events' objects (paths from the object down,
  // e.g. {"metadata", "managedFields"}) that are read past, not built.
  explicit WatchDecoder(const std::vector<json::MemberPath>& unread = {});

  // Decodes every frame completed by `bytes`. Throws ApiError(kDecode) on a
  // frame that is not a watch event.
  void Feed(std::string_view bytes, const Callback& on_event);
  void Reset();
  std::size_t buffered() const { return buffer_.size(); }

 private:
  void Emit(std::size_t begin, std::size_t end, const Callback& on_event);

  std::vector<json::MemberPath> unread_;  // from the frame down: "object" first
  std::string buffer_;
  std::size_t scanned_ = 0;      // Bytes of buffer_ already scanned.
  std::size_t frame_start_ = 0;  // Where the current frame began.
  int depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
};

// Decodes one event frame ({"type": ..., "object": {...}}), without the
// members at `unread` (paths from the frame down, "object" first).
WatchEvent DecodeWatchEvent(std::string_view frame,
                            const std::vector<json::MemberPath>& unread = {});

// Receives what a reflector observes. Called from the reflector's thread.
class ListWatchSink {
 public:
  virtual ~ListWatchSink() = default;
  // The complete state after a list (first sync or a re-list after 410).
  virtual void Replace(std::vector<Json>&& items, const std::string& resource_version) = 0;
  // One ADDED, MODIFIED or DELETED event.
  virtual void Apply(WatchEvent&& event) = 0;
};

struct ListWatchOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t page_size = 500;
  int watch_timeout_seconds = 300;  // Server ends each watch after this; we re-watch.
  Millis idle_timeout{90'000};      // No bytes (not even bookmarks) for this long: reconnect.
  BackoffPolicy backoff{Millis(100), Millis(30'000)};
  bool bookmarks = true;
  // Listed and watched objects lose metadata.managedFields, which a watch
  // decodes without building them: for sinks that never read them.
  bool drop_managed_fields = false;
  // More members no sink reads (paths from the object down, e.g.
  // {"status", "containerStatuses"}; "*" for any name): dropped the same way.
  std::vector<json::MemberPath> unread_members;
};

// The paths a list and watch with `options` leave unread, from the object down.
std::vector<json::MemberPath> UnreadMembers(const ListWatchOptions& options);

struct ReflectorStats {
  uint64_t lists = 0;
  uint64_t watches = 0;
  uint64_t gone = 0;    // 410 answers (each followed by a re-list).
  uint64_t errors = 0;  // Failed lists or watches (each followed by a backoff).
  uint64_t events = 0;
};

class Reflector {
 public:
  Reflector(Client& client, Resource resource, std::string ns, ListWatchOptions options,
            ListWatchSink& sink);

  // Lists and watches until `stop` becomes true or the client's transport is
  // cancelled.
  void Run(const std::atomic<bool>& stop);

  std::string last_resource_version() const;
  ReflectorStats stats() const;

 private:
  void ListAndReplace();
  // Watches from the last resourceVersion until the stream ends; returns
  // whether any event or bookmark arrived.
  bool WatchOnce(const std::atomic<bool>& stop);
  void HandleEvent(WatchEvent&& event);
  // Backs off until `duration` passed, `stop` is set or the transport cancelled.
  void Pause(const std::atomic<bool>& stop, Millis duration);
  void SetResourceVersion(const std::string& rv);

  Client& client_;
  Resource resource_;
  std::string namespace_;
  ListWatchOptions options_;
  ListWatchSink& sink_;
  mutable std::mutex mutex_;
  std::string resource_version_;
  ReflectorStats stats_;
};

// Sleeps for `duration` or until `stop` becomes true, whichever comes first.
void SleepUnlessStopped(const std::atomic<bool>& stop, Millis duration);

}  // namespace gpupool::kube
