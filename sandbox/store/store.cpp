#include "sandbox/store/store.h"

#include <algorithm>
#include <stdexcept>

#include "gpupool/json/parse.h"

namespace gpupool::sandbox {

Json StoredObject::Parsed() const {
  Json object = json::ParseJson(json);
  if (object.is_discarded()) throw std::logic_error("a stored object is not JSON: " + name);
  return object;
}

const char* EventTypeName(EventType type) {
  switch (type) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
  }
  return "MODIFIED";
}

ObjectPtr Store::Get(const std::string& resource, const std::string& key) const {
  auto table = tables_.find(resource);
  if (table == tables_.end()) return nullptr;
  auto it = table->second.find(key);
  return it == table->second.end() ? nullptr : it->second;
}

const ObjectMap& Store::Objects(const std::string& resource) const {
  static const ObjectMap kEmpty;
  auto table = tables_.find(resource);
  return table == tables_.end() ? kEmpty : table->second;
}

void Store::Put(const std::string& resource, const std::string& key, ObjectPtr object) {
  auto& slot = tables_[resource][key];
  ChangeEvent event{object->rv, slot ? EventType::kModified : EventType::kAdded, resource, object,
                    slot};
  slot = std::move(object);
  Record(std::move(event));
}

void Store::Remove(const std::string& resource, const std::string& key, ObjectPtr last) {
  auto& table = tables_[resource];
  auto it = table.find(key);
  if (it == table.end()) return;
  ChangeEvent event{last->rv, EventType::kDeleted, resource, last, it->second};
  table.erase(it);
  Record(std::move(event));
}

void Store::Record(ChangeEvent event) {
  last_recorded_ = event.rv;
  last_change_[event.resource] = event.rv;
  const auto waiting = changed_.find(event.resource);
  if (feed_open_) feed_.push_back(event);
  history_.push_back(std::move(event));
  while (history_.size() > window_) {
    compacted_ = history_.front().rv;
    last_lost_[history_.front().resource] = history_.front().rv;
    history_.pop_front();
  }
  if (waiting != changed_.end()) waiting->second.notify_all();
}

void Store::Compact() {
  history_.clear();
  compacted_ = rv_;
  last_lost_ = last_change_;
  NotifyAll();
}

void Store::NotifyAll() {
  for (auto& [resource, waiting] : changed_) waiting.notify_all();
}

uint64_t Store::Newest(const std::map<std::string, uint64_t>& versions,
                       const std::string& resource) const {
  const auto found = versions.find(resource);
  return found == versions.end() ? 0 : found->second;
}

bool Store::Lost(const std::string& resource, uint64_t after) const {
  return Newest(last_lost_, resource) > after;
}

void Store::DropResource(const std::string& resource) {
  auto table = tables_.find(resource);
  if (table == tables_.end()) return;
  ObjectMap objects = std::move(table->second);
  tables_.erase(table);
  for (auto& [key, object] : objects) {
    auto last = std::make_shared<StoredObject>(*object);
    last->rv = NextVersion();
    Record({last->rv, EventType::kDeleted, resource, last, object});
  }
}

std::vector<ChangeEvent> Store::EventsOf(const std::string& resource, uint64_t after, size_t max,
                                         uint64_t* read_to) const {
  std::vector<ChangeEvent> events;
  *read_to = std::max(after, last_recorded_);
  if (Newest(last_change_, resource) <= after) return events;  // nothing of it since
  // History is ordered by rv: binary search for the first event after `after`.
  auto it = std::upper_bound(history_.begin(), history_.end(), after,
                             [](uint64_t rv, const ChangeEvent& event) { return rv < event.rv; });
  for (; it != history_.end(); ++it) {
    if (it->resource != resource) continue;
    if (events.size() == max) {
      *read_to = events.back().rv;
      break;
    }
    events.push_back(*it);
  }
  return events;
}

bool Store::WaitForChange(std::unique_lock<std::mutex>& lock, const std::string& resource,
                          uint64_t after, std::chrono::steady_clock::time_point deadline) {
  return changed_[resource].wait_until(lock, deadline, [&] {
    return Newest(last_change_, resource) > after || Lost(resource, after);
  });
}

std::map<std::string, ObjectPtr> Store::StatesAt(const std::string& resource, uint64_t rv) const {
  std::map<std::string, ObjectPtr> states;
  // Walk newest to oldest so the oldest change after `rv` decides each key.
  for (auto it = history_.rbegin(); it != history_.rend() && it->rv > rv; ++it) {
    if (it->resource != resource) continue;
    const auto& object = it->object;
    const std::string key = object->ns.empty() ? object->name : object->ns + "/" + object->name;
    states[key] = it->previous;
  }
  return states;
}

}  // namespace gpupool::sandbox
