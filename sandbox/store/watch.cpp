// Watch streams: newline-delimited JSON events replayed from the store's
// history, with bookmarks, resume from a resourceVersion, 410 Expired once
// that version has left the history window, and timeoutSeconds.
#include <algorithm>
#include <optional>
#include <thread>

#include "sandbox/http/http_server.h"
#include "sandbox/http/http_util.h"
#include "sandbox/http/table.h"
#include "sandbox/store/events.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

using Clock = std::chrono::steady_clock;

// How long a watch gathers changes after the first one before sending them.
constexpr std::chrono::milliseconds kGatherChanges{5};

struct WatchState {
  ResourcePtr resource;
  std::string storage_key;
  std::string ns;
  LabelSelector labels;
  FieldSelector fields;
  uint64_t cursor = 0;
  bool bookmarks = false;
  bool table = false;
  Clock::time_point deadline;
  Clock::time_point next_bookmark;
  std::vector<ObjectPtr> initial;  // synthetic ADDED events sent first
  bool initial_end_bookmark = false;
  bool finished = false;
  bool live = false;  // past its first read of the history
  std::chrono::milliseconds bookmark_every{10000};

  bool Matches(const StoredObject& object) const {
    return (ns.empty() || object.ns == ns) && labels.Matches(object.labels) &&
           object.MatchesFields(fields);
  }
};

std::string EventLine(const WatchState& state, const char* type, const ObjectPtr& object) {
  if (!state.table) {
    return std::string("{\"type\":\"") + type +
           "\",\"object\":" + PresentStored(*state.resource, object->json) + "}\n";
  }
  const Json parsed = PresentObject(*state.resource, object->Parsed());
  Json table = {{"kind", "Table"},
                {"apiVersion", "meta.k8s.io/v1"},
                {"metadata", {{"resourceVersion", std::to_string(object->rv)}}},
                {"columnDefinitions", Json::array()},
                {"rows", Json::array({TableRow(*state.resource, parsed, "Metadata")})}};
  return Json{{"type", type}, {"object", table}}.dump() + "\n";
}

std::string BookmarkLine(const WatchState& state, bool initial_end) {
  Json metadata = {{"resourceVersion", std::to_string(state.cursor)}};
  if (initial_end) metadata["annotations"] = {{"k8s.io/initial-events-end", "true"}};
  Json object = {{"kind", state.table ? "Table" : state.resource->kind},
                 {"apiVersion", state.table ? "meta.k8s.io/v1" : state.resource->ApiVersion()},
                 {"metadata", metadata}};
  return Json{{"type", "BOOKMARK"}, {"object", object}}.dump() + "\n";
}

// Turns a change into what this watcher sees: objects entering or leaving
// the selection appear as ADDED or DELETED.
const char* VisibleType(const WatchState& state, const ChangeEvent& event) {
  if (event.resource != state.storage_key) return nullptr;
  const bool now = state.Matches(*event.object);
  const bool before = event.previous && state.Matches(*event.previous);
  switch (event.type) {
    case EventType::kAdded:
      return now ? "ADDED" : nullptr;
    case EventType::kDeleted:
      return now || before ? "DELETED" : nullptr;
    case EventType::kModified:
      if (now && before) return "MODIFIED";
      if (now) return "ADDED";
      return before ? "DELETED" : nullptr;
  }
  return nullptr;
}

// When the next BOOKMARK is due: every bookmark interval, and once two
// seconds before the watch times out so the client resumes from a fresh
// version (the real watch cache does the same). Never when that has passed.
Clock::time_point NextBookmark(const WatchState& state, Clock::time_point now) {
  auto due = now + state.bookmark_every;
  const auto before_timeout = state.deadline - std::chrono::seconds(2);
  if (before_timeout < due) due = before_timeout;
  return due < now ? Clock::time_point::max() : due;
}

// timeoutSeconds as the real server reads it: a 64-bit integer (400
// otherwise) times a second, wrapping as Go's durations do; zero is the
// default, and a negative result a deadline already passed (nullopt). Held to
// a year so no duration arithmetic here can overflow.
std::optional<std::chrono::milliseconds> WatchTimeout(const httplib::Request& request) {
  constexpr int64_t kDefaultSeconds = 1800;
  constexpr int64_t kLongestSeconds = 365LL * 24 * 3600;
  if (!request.has_param("timeoutSeconds")) return std::chrono::seconds(kDefaultSeconds);
  const int64_t seconds = ParseInteger(request.get_param_value("timeoutSeconds"), "timeoutSeconds");
  const auto nanoseconds =
      static_cast<int64_t>(static_cast<uint64_t>(seconds) * uint64_t{1000000000});
  if (nanoseconds == 0) return std::chrono::seconds(kDefaultSeconds);
  if (nanoseconds < 0) return std::nullopt;
  return std::chrono::seconds(std::min(nanoseconds / 1000000000, kLongestSeconds));
}

// A watch whose deadline passed before it began: one ERROR event, as the
// real server's expired request context gives.
void AnswerDeadlineExceeded(httplib::Response& response) {
  const ApiError exceeded(500, "InternalError", "context deadline exceeded");
  response.set_content(Json{{"type", "ERROR"}, {"object", StatusJson(exceeded)}}.dump() + "\n",
                       "application/json;stream=watch");
}

// A watch's resourceVersion: a malformed one is a 500 naming it, as the real
// server's watch answers (its list answers such a version with a 400).
uint64_t ParseVersion(const std::string& text) {
  // stoull would read "-5" as a huge version and skip whitespace and signs.
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (digits) {
    try {
      return std::stoull(text);
    } catch (const std::out_of_range&) {
      throw ApiError(500, "",
                     "resourceVersion: Invalid value: \"" + text +
                         "\": strconv.ParseUint: parsing \"" + text + "\": value out of range");
    }
  }
  throw ApiError(500, "",
                 "resourceVersion: Invalid value: \"" + text + "\": strconv.ParseUint: parsing \"" +
                     text + "\": invalid syntax");
}

// The oldest version a new watch of the resource may resume from: the
// history's, or for custom resources the moment their CRD made them served.
uint64_t OldestResumable(const Store& store, const WatchState& state) {
  return std::max(store.OldestResumable(), state.resource->served_since);
}

// A new watch resumes only from a version still in the history; a live one
// expires when a change it has yet to send leaves it. Store locked.
bool OutOfHistory(const Store& store, const WatchState& state) {
  return state.live ? store.Lost(state.storage_key, state.cursor)
                    : state.cursor < OldestResumable(store, state);
}

// Ends the watch with 410 Expired. Store locked.
bool SendExpired(const Store& store, WatchState& state, httplib::DataSink& sink) {
  const ApiError gone = Expired("too old resource version: " + std::to_string(state.cursor) + " (" +
                                std::to_string(OldestResumable(store, state)) + ")");
  const std::string out = Json{{"type", "ERROR"}, {"object", StatusJson(gone)}}.dump() + "\n";
  state.finished = true;
  return sink.write(out.data(), out.size());
}

// One call of the chunked provider: sends what is due, or waits up to a
// second for changes. Returns false to abort the connection.
bool StreamWatch(Store& store, const std::atomic<bool>& stopping, WatchState& state,
                 httplib::DataSink& sink) {
  std::string out;
  if (!state.initial.empty() || state.initial_end_bookmark) {
    for (const auto& object : state.initial) out += EventLine(state, "ADDED", object);
    state.initial.clear();
    if (state.initial_end_bookmark) out += BookmarkLine(state, true);
    state.initial_end_bookmark = false;
    return sink.write(out.data(), out.size());
  }
  const auto now = Clock::now();
  if (state.finished || stopping || now >= state.deadline) {
    sink.done();
    return true;
  }
  std::vector<ChangeEvent> events;
  {
    auto lock = store.Lock();
    if (OutOfHistory(store, state)) return SendExpired(store, state, sink);
    auto wake = std::min(state.deadline, now + std::chrono::seconds(1));
    if (state.bookmarks) wake = std::min(wake, state.next_bookmark);
    state.live = true;
    if (store.WaitForChange(lock, state.storage_key, state.cursor, wake)) {
      // Writes come in bursts: the changes of the next moment go out with this
      // one, in one write and one wake-up of the client instead of one each.
      lock.unlock();
      std::this_thread::sleep_for(kGatherChanges);
      lock.lock();
      if (OutOfHistory(store, state)) return SendExpired(store, state, sink);
    }
    events = store.EventsOf(state.storage_key, state.cursor, 512, &state.cursor);
  }
  for (const auto& event : events) {
    if (const char* type = VisibleType(state, event)) out += EventLine(state, type, event.object);
  }
  if (state.bookmarks && Clock::now() >= state.next_bookmark) {
    out += BookmarkLine(state, false);
    state.next_bookmark = NextBookmark(state, Clock::now());
  }
  if (out.empty()) return sink.is_writable();
  return sink.write(out.data(), out.size());
}

}  // namespace

void HttpServer::Watch(const httplib::Request& request, httplib::Response& response,
                       const ResourcePtr& resource, const std::string& ns) {
  const auto list_options = ListOptionsOf(request);
  auto state = std::make_shared<WatchState>();
  state->resource = resource;
  state->storage_key = StorageKey(*resource);
  state->ns = resource->namespaced ? ns : "";
  state->labels = LabelSelector::Parse(list_options.label_selector);
  state->fields = FieldSelector::Parse(list_options.field_selector, resource->selectable_fields);
  state->bookmarks = BoolParam(request, "allowWatchBookmarks");
  state->table = WantsTable(request);
  const auto now = Clock::now();
  const auto timeout = WatchTimeout(request);
  if (!timeout) return AnswerDeadlineExceeded(response);
  state->deadline = now + *timeout;
  state->bookmark_every =
      std::chrono::milliseconds(static_cast<int64_t>(options_.bookmark_seconds * 1000));
  state->next_bookmark = NextBookmark(*state, now);
  if (faults_.options().watch_cut_seconds > 0) {
    // A cut is a broken connection, not a timeout: no bookmark announces it.
    const auto cut =
        std::chrono::milliseconds(static_cast<int64_t>(faults_.options().watch_cut_seconds * 1000));
    state->deadline = std::min(state->deadline, now + cut);
  }
  const std::string& rv = list_options.resource_version;
  const bool send_initial = BoolParam(request, "sendInitialEvents");
  {
    auto& store = cluster_.store();
    auto lock = store.Lock();
    if (rv.empty() || rv == "0" || send_initial) {
      bool more = false;
      state->cursor = store.CurrentVersion();
      state->initial = store.ListAt(
          state->storage_key, state->cursor, "", state->ns.empty() ? "" : state->ns + "/", 0,
          [&](const StoredObject& object) { return state->Matches(object); }, &more);
      state->initial_end_bookmark = send_initial;
    } else {
      // A version older than the history is answered in the stream, with an
      // ERROR event carrying 410 Expired, as the real server does.
      state->cursor = ParseVersion(rv);
    }
  }
  response.set_chunked_content_provider(
      "application/json;stream=watch", [this, state](size_t, httplib::DataSink& sink) {
        return StreamWatch(cluster_.store(), stopping_, *state, sink);
      });
}

}  // namespace gpupool::sandbox
