// The in-memory database: objects per resource kept as serialized JSON (small
// and ready to send), a global resourceVersion counter, and a bounded history
// of changes that watches replay and resume from.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/rules/resource_type.h"
#include "sandbox/store/selectors.h"

namespace gpupool::sandbox {

// One version of one object. Immutable once stored: readers share it.
struct StoredObject {
  std::string json;  // the object, with metadata.resourceVersion set
  std::string ns;
  std::string name;
  std::string uid;
  uint64_t rv = 0;
  StringPairs labels;
  // The selectable fields (metadata.name/namespace included), their names shared
  // by every object of the resource, and this object's values, aligned.
  std::shared_ptr<const SelectableFieldNames> field_names;
  std::vector<std::string> field_values;

  Json Parsed() const;  // `json` parsed

  bool MatchesFields(const FieldSelector& selector) const {
    static const std::vector<std::string> kNone;
    return selector.Matches(field_names ? field_names->names : kNone, field_values);
  }
  std::vector<std::string> owner_uids;
  bool deleting = false;              // metadata.deletionTimestamp is set
  bool finalizes_dependents = false;  // a finalizer is foregroundDeletion or orphan
};
using ObjectPtr = std::shared_ptr<const StoredObject>;
using ObjectMap = std::map<std::string, ObjectPtr>;  // by "namespace/name" or "name"

enum class EventType { kAdded, kModified, kDeleted };
const char* EventTypeName(EventType type);

struct ChangeEvent {
  uint64_t rv;
  EventType type;
  std::string resource;  // storage key of the resource ("group/plural")
  ObjectPtr object;      // the new state; for kDeleted the last state
  ObjectPtr previous;    // null for kAdded
};

// Changes kept by default: the most a real API server's watch cache keeps for one
// resource (it sizes the cache to hold 75 s of changes, up to this many).
constexpr size_t kDefaultHistoryWindow = 100 * 1024;

class Store {
 public:
  explicit Store(size_t history_window) : window_(history_window) {}

  // Every method below expects the caller to hold the lock.
  std::unique_lock<std::mutex> Lock() { return std::unique_lock(mutex_); }

  ObjectPtr Get(const std::string& resource, const std::string& key) const;
  const ObjectMap& Objects(const std::string& resource) const;
  uint64_t CurrentVersion() const { return rv_; }
  uint64_t NextVersion() { return ++rv_; }
  // Watches may resume from any version >= this one.
  uint64_t OldestResumable() const { return compacted_; }

  // Stores `object` (whose rv came from NextVersion) and records the change.
  void Put(const std::string& resource, const std::string& key, ObjectPtr object);
  // Removes the object; `last` is its final state with a fresh rv.
  void Remove(const std::string& resource, const std::string& key, ObjectPtr last);
  // Drops the whole history: every older resume version becomes 410 Gone.
  void Compact();
  // Removes every object of a resource (a deleted CRD), with DELETED events.
  void DropResource(const std::string& resource);

  // Events of `resource` with rv > `after`, at most `max`; `*read_to` is the
  // version up to which the history was read (what lies between is of other
  // resources). Caller checks OldestResumable or Lost first.
  std::vector<ChangeEvent> EventsOf(const std::string& resource, uint64_t after, size_t max,
                                    uint64_t* read_to) const;
  // True when a change of `resource` after `after` has left the history.
  bool Lost(const std::string& resource, uint64_t after) const;
  // Blocks (releasing the lock) until a change of `resource` after `after`,
  // the loss of one, or the deadline. Only waiters on that resource wake.
  // Returns whether there is one (false: the deadline passed first).
  bool WaitForChange(std::unique_lock<std::mutex>& lock, const std::string& resource,
                     uint64_t after, std::chrono::steady_clock::time_point deadline);
  // Wakes all waiting watches (used on shutdown and forced cuts).
  void NotifyAll();

  // The simulated controllers' feed: every change from OpenFeed() on, kept
  // apart from the bounded history (and its compactions) so that a reader
  // busy with its own writes never falls behind it. TakeFeed hands it over.
  void OpenFeed() { feed_open_ = true; }
  bool FeedOpen() const { return feed_open_; }
  std::vector<ChangeEvent> TakeFeed() { return std::exchange(feed_, {}); }

  // The objects of `resource` as they were at version `rv`, keys after
  // `start_after`, in key order, at most `limit` (0 = all) that `keep` accepts.
  // Caller checks that rv >= OldestResumable.
  template <typename Keep>
  std::vector<ObjectPtr> ListAt(const std::string& resource, uint64_t rv,
                                const std::string& start_after, const std::string& prefix,
                                size_t limit, Keep keep, bool* more) const;

 private:
  // Object states at `rv` for keys changed since then (null = did not exist).
  std::map<std::string, ObjectPtr> StatesAt(const std::string& resource, uint64_t rv) const;
  void Record(ChangeEvent event);

  uint64_t Newest(const std::map<std::string, uint64_t>& versions,
                  const std::string& resource) const;

  std::mutex mutex_;
  std::map<std::string, std::condition_variable> changed_;  // by resource
  std::map<std::string, uint64_t> last_change_;             // by resource
  std::map<std::string, uint64_t> last_lost_;  // by resource: the newest change dropped
  std::map<std::string, ObjectMap> tables_;
  std::deque<ChangeEvent> history_;
  size_t window_;
  uint64_t rv_ = 0;
  uint64_t compacted_ = 0;
  uint64_t last_recorded_ = 0;
  bool feed_open_ = false;
  std::vector<ChangeEvent> feed_;
};

template <typename Keep>
std::vector<ObjectPtr> Store::ListAt(const std::string& resource, uint64_t rv,
                                     const std::string& start_after, const std::string& prefix,
                                     size_t limit, Keep keep, bool* more) const {
  const auto overrides = StatesAt(resource, rv);
  const auto& current = Objects(resource);
  auto cur = start_after.empty() ? current.lower_bound(prefix) : current.upper_bound(start_after);
  auto over =
      start_after.empty() ? overrides.lower_bound(prefix) : overrides.upper_bound(start_after);
  std::vector<ObjectPtr> out;
  *more = false;
  while (cur != current.end() || over != overrides.end()) {
    const bool take_over =
        cur == current.end() || (over != overrides.end() && over->first <= cur->first);
    const std::string& key = take_over ? over->first : cur->first;
    if (key.compare(0, prefix.size(), prefix) != 0) break;
    ObjectPtr object = take_over ? over->second : cur->second;
    if (take_over) {
      if (cur != current.end() && cur->first == over->first) ++cur;
      ++over;
    } else {
      ++cur;
    }
    if (!object || !keep(*object)) continue;
    if (limit > 0 && out.size() == limit) {
      *more = true;
      break;
    }
    out.push_back(std::move(object));
  }
  return out;
}

}  // namespace gpupool::sandbox
