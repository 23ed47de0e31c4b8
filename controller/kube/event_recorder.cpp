#include "gpupool/kube/event_recorder.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <vector>

#include "gpupool/kube/errors.h"
#include "gpupool/kube/leader_election.h"

namespace gpupool::kube {
namespace {

std::string UniqueSuffix() {
  thread_local std::mt19937_64 random(std::random_device{}());
  char text[20];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(random()));
  return text;
}

std::string EventNamespace(const ObjectReference& object) {
  return object.ns.empty() ? "default" : object.ns;  // Cluster-scoped objects.
}

Json Regarding(const ObjectReference& object) {
  Json ref = {{"apiVersion", object.api_version}, {"kind", object.kind}, {"name", object.name}};
  if (!object.ns.empty()) ref["namespace"] = object.ns;
  if (!object.uid.empty()) ref["uid"] = object.uid;
  return ref;
}

TransportOptions OwnTransportOptions(const Transport& shared) {
  TransportOptions options = shared.options();
  options.cancel = nullptr;  // A token of its own: Stop cancels only the recorder's sends.
  return options;
}

EventRecorderOptions WithDefaults(EventRecorderOptions options) {
  if (options.reporting_instance.empty()) options.reporting_instance = HostName();
  return options;
}

bool IsUtf8Continuation(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) == 0x80; }

}  // namespace

std::string TruncateUtf8(const std::string& text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t end = max_bytes;
  // Back up to the first byte of the character that straddles the cut.
  while (end > 0 && IsUtf8Continuation(text[end])) --end;
  return text.substr(0, end);
}

std::string HostName() {
  char name[256] = "";
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

EventRecorder::EventRecorder(Client& client, EventRecorderOptions options)
    : options_(WithDefaults(std::move(options))),
      client_(client.transport().config(), OwnTransportOptions(client.transport())) {
  thread_ = std::thread([this] { Run(); });
}

EventRecorder::~EventRecorder() { Stop(); }

void EventRecorder::Stop() {
  // Once: the destructor calls it again, and concurrent callers all wait for
  // the one drain.
  std::call_once(stopped_once_, [this] { DrainAndStop(); });
}

void EventRecorder::DrainAndStop() {
  std::unique_lock lock(mutex_);
  accepting_ = false;
  bool drained =
      changed_.wait_for(lock, options_.drain_timeout, [this] { return queue_.empty() && !busy_; });
  if (!drained) {
    uint64_t left = queue_.size() + (busy_ ? 1 : 0);
    spdlog::warn("events: {} not sent within the {} ms shutdown drain; dropped", left,
                 options_.drain_timeout.count());
    stats_.dropped += queue_.size();
    stats_.dropped_at_shutdown += left;
    queue_.clear();
    client_.Cancel();  // The send in flight fails at once (and counts itself as dropped).
  }
  stop_ = true;
  changed_.notify_all();
  lock.unlock();
  thread_.join();
}

void EventRecorder::Record(const ObjectReference& object, const std::string& type,
                           const std::string& reason, const std::string& action,
                           const std::string& message) {
  std::lock_guard lock(mutex_);
  if (!accepting_ || queue_.size() >= options_.max_queued) {
    ++stats_.dropped;
    return;
  }
  queue_.push_back({object, type, reason, action, TruncateUtf8(message, kMaxEventNoteBytes)});
  changed_.notify_all();
}

bool EventRecorder::Flush(Millis timeout) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [this] { return queue_.empty() && !busy_; });
}

EventRecorderStats EventRecorder::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void EventRecorder::Run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // Stopping with nothing left to send.
    Pending event = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    try {
      Send(event);
    } catch (const std::exception& error) {
      spdlog::warn("event {} on {} {}: not recorded: {}", event.reason, event.object.kind,
                   event.object.name, error.what());
      std::lock_guard count_lock(mutex_);
      ++stats_.dropped;
    }
    lock.lock();
    busy_ = false;
    changed_.notify_all();
  }
}

// Keeps memory bounded in a long-running controller: events past the
// aggregation window can no longer be aggregated.
// The scan runs once the map has doubled since the last one, so its cost per
// event stays constant however many events the window holds.
void EventRecorder::PruneExpired(Clock::time_point now) {
  if (sent_.size() <= prune_sent_at_) return;
  std::erase_if(sent_, [&](const auto& entry) {
    return now - entry.second.first >= options_.aggregation_window;
  });
  prune_sent_at_ = std::max<std::size_t>(kMinSentBeforePrune, 2 * sent_.size());
}

// A limit idle for the time its bucket takes to refill is full again, as a new
// one would be: forgetting it changes nothing. Only when that is not enough
// are the longest idle forgotten, never all at once, so a hot object (used
// last) is the last to lose its limit. Each pass makes room for a tenth of the
// maximum more, so the scans cost a constant per event.
void EventRecorder::PruneLimitsLocked(Clock::time_point now) {
  if (limits_.size() <= options_.max_tracked_objects) return;
  double refill_seconds = options_.per_object_qps > 0
                              ? options_.per_object_burst / options_.per_object_qps
                              : 0;  // Unlimited: nothing worth remembering.
  auto refill =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(refill_seconds));
  std::erase_if(limits_, [&](const auto& entry) { return now - entry.second.last_used >= refill; });
  if (limits_.size() <= options_.max_tracked_objects) return;
  std::vector<std::pair<Clock::time_point, std::string>> by_idle;
  by_idle.reserve(limits_.size());
  for (const auto& [key, limit] : limits_) by_idle.emplace_back(limit.last_used, key);
  std::size_t excess = limits_.size() - options_.max_tracked_objects;
  excess = std::min(limits_.size() - 1, excess + options_.max_tracked_objects / 10);
  std::nth_element(by_idle.begin(), by_idle.begin() + static_cast<long>(excess) - 1, by_idle.end());
  for (std::size_t i = 0; i < excess; ++i) limits_.erase(by_idle[i].second);
}

bool EventRecorder::Allowed(const ObjectReference& object) {
  std::lock_guard lock(mutex_);
  auto now = Clock::now();
  auto& limit = limits_[object.kind + "/" + object.ns + "/" + object.name];
  if (!limit.bucket)
    limit.bucket =
        std::make_unique<TokenBucket>(options_.per_object_qps, options_.per_object_burst);
  limit.last_used = now;
  bool allowed = limit.bucket->TryAcquire();
  PruneLimitsLocked(now);  // After the update, so this object is the newest.
  if (allowed) return true;
  ++stats_.dropped;
  return false;
}

bool EventRecorder::UseEventsV1() {
  if (api_ == 0) {
    api_ = client_.Serves(resources::kEvents) ? 1 : 2;
    std::lock_guard lock(mutex_);
    stats_.using_events_v1 = api_ == 1;
  }
  return api_ == 1;
}

void EventRecorder::Send(const Pending& event) {
  std::string key = event.object.uid + "|" + event.object.kind + "|" + event.object.ns + "|" +
                    event.object.name + "|" + event.type + "|" + event.reason + "|" + event.message;
  auto now = Clock::now();
  PruneExpired(now);
  auto it = sent_.find(key);
  if (it != sent_.end() && now - it->second.first < options_.aggregation_window) {
    // Repeats count against the object's budget too, or a hot loop would
    // turn into a stream of PATCHes.
    if (Allowed(event.object)) Aggregate(it->second);
    return;
  }
  if (!Allowed(event.object)) return;
  Create(event, key);
}

void EventRecorder::Create(const Pending& event, const std::string& key) {
  std::string ns = EventNamespace(event.object);
  std::string name = event.object.name + "." + UniqueSuffix();
  Json body;
  if (UseEventsV1()) {
    body = {{"apiVersion", "events.k8s.io/v1"},
            {"kind", "Event"},
            {"metadata", {{"name", name}, {"namespace", ns}}},
            {"eventTime", NowMicroTime()},
            {"reportingController", options_.reporting_controller},
            {"reportingInstance", options_.reporting_instance},
            {"action", event.action},
            {"reason", event.reason},
            {"note", event.message},
            {"type", event.type},
            {"regarding", Regarding(event.object)}};
    client_.Create(resources::kEvents, ns, body, {.ignore_answer = true});  // Not read.
  } else {
    std::string now = NowTime();
    body = {{"apiVersion", "v1"},
            {"kind", "Event"},
            {"metadata", {{"name", name}, {"namespace", ns}}},
            {"involvedObject", Regarding(event.object)},
            {"reason", event.reason},
            {"message", event.message},
            {"type", event.type},
            {"action", event.action},
            {"count", 1},
            {"firstTimestamp", now},
            {"lastTimestamp", now},
            {"source", {{"component", options_.reporting_controller}}},
            {"reportingComponent", options_.reporting_controller},
            {"reportingInstance", options_.reporting_instance}};
    client_.Create(resources::kCoreEvents, ns, body, {.ignore_answer = true});
  }
  sent_[key] = {ns, name, 1, Clock::now()};
  std::lock_guard lock(mutex_);
  ++stats_.created;
}

void EventRecorder::Aggregate(Sent& sent) {
  int count = sent.count + 1;
  if (UseEventsV1()) {
    Json patch = {{"series", {{"count", count}, {"lastObservedTime", NowMicroTime()}}}};
    client_.Patch(resources::kEvents, sent.ns, sent.name, PatchType::kMerge, patch,
                  {.ignore_answer = true});
  } else {
    Json patch = {{"count", count}, {"lastTimestamp", NowTime()}};
    client_.Patch(resources::kCoreEvents, sent.ns, sent.name, PatchType::kMerge, patch,
                  {.ignore_answer = true});
  }
  sent.count = count;
  std::lock_guard lock(mutex_);
  ++stats_.aggregated;
}

}  // namespace gpupool::kube
