// An informer: a reflector (list + watch, resumed and re-listed as needed)
// feeding an indexed Cache<T>, with add/update/delete handlers and a synced
// signal. Generic over the cached type: `decode` turns each object's JSON into
// a T (the JSON itself, or a compact typed view), so no JSON DOM need be kept.
//
// Handlers run on the informer's thread, after the cache has changed, and see
// every change exactly once: duplicate events (same resourceVersion) are
// dropped, and a re-list reports only what differs from the cache.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "gpupool/kube/cache.h"
#include "gpupool/kube/watch.h"

namespace gpupool::kube {

template <typename T>
struct InformerHandlers {
  std::function<void(const T&)> on_add;
  std::function<void(const T& old_object, const T& new_object)> on_update;
  std::function<void(const T&)> on_delete;
};

template <typename T>
class Informer : public ListWatchSink {
 public:
  using Ptr = std::shared_ptr<const T>;
  using Decode = std::function<T(const Json&)>;

  Informer(Client& client, Resource resource, std::string ns, Decode decode,
           ListWatchOptions options = {})
      : decode_(std::move(decode)),
        reflector_(client, std::move(resource), std::move(ns), std::move(options), *this) {}
  ~Informer() { Stop(); }
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Configuration: before Start().
  void AddIndex(const std::string& name, IndexFunc<T> func) {
    cache_.AddIndex(name, std::move(func));
  }
  void AddHandlers(InformerHandlers<T> handlers) { handlers_.push_back(std::move(handlers)); }

  void Start() {
    thread_ = std::thread([this] { reflector_.Run(stop_); });
  }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  bool HasSynced() const { return synced_.load(); }
  bool WaitForSync(Millis timeout) {
    std::unique_lock lock(sync_mutex_);
    return sync_cv_.wait_for(lock, timeout, [this] { return synced_.load(); });
  }

  const Cache<T>& cache() const { return cache_; }
  Ptr Get(const std::string& ns, const std::string& name) const {
    return cache_.Get(ObjectKey(ns, name));
  }
  const Reflector& reflector() const { return reflector_; }

  // The sink the reflector feeds; public so other sources (a recorded
  // stream, a benchmark) can drive the cache the same way.
  void Replace(std::vector<Json>&& items, const std::string&) override {
    std::unordered_set<std::string> seen;
    for (Json& item : items) {
      seen.insert(ObjectKey(NamespaceOf(item), NameOf(item)));
      Upsert(item);
    }
    for (const auto& [key, rv] : cache_.Versions()) {
      if (seen.count(key)) continue;
      if (Ptr old = cache_.Remove(key)) NotifyDelete(*old);
    }
    if (!synced_.exchange(true)) {
      std::lock_guard lock(sync_mutex_);
      sync_cv_.notify_all();
    }
  }

  void Apply(WatchEvent&& event) override {
    if (event.type == EventType::kDeleted) {
      if (Ptr old = cache_.Remove(ObjectKey(NamespaceOf(event.object), NameOf(event.object))))
        NotifyDelete(*old);
      return;
    }
    Upsert(event.object);
  }

 private:
  // Adds or updates one object unless the cache already holds that version.
  void Upsert(const Json& object) {
    std::string ns = NamespaceOf(object);
    std::string key = ObjectKey(ns, NameOf(object));
    std::string rv = ResourceVersionOf(object);
    if (!rv.empty() && cache_.ResourceVersion(key) == rv) return;
    auto decoded = std::make_shared<const T>(decode_(object));
    Ptr old = cache_.Put(key, ns, std::move(rv), decoded);
    for (const auto& handlers : handlers_) {
      if (old && handlers.on_update) handlers.on_update(*old, *decoded);
      if (!old && handlers.on_add) handlers.on_add(*decoded);
    }
  }

  void NotifyDelete(const T& object) {
    for (const auto& handlers : handlers_)
      if (handlers.on_delete) handlers.on_delete(object);
  }

  Decode decode_;
  Cache<T> cache_;
  std::vector<InformerHandlers<T>> handlers_;
  Reflector reflector_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> synced_{false};
  std::mutex sync_mutex_;
  std::condition_variable sync_cv_;
  std::thread thread_;
};

// Decode function that keeps the object's JSON as it is.
inline Json KeepJson(const Json& object) { return object; }

// Index of JSON objects by the value of one label ("pods by job").
inline IndexFunc<Json> JsonLabelIndex(std::string label) {
  return [label = std::move(label)](const Json& object) -> std::vector<std::string> {
    auto meta = object.find("metadata");
    if (meta == object.end() || !meta->is_object()) return {};
    auto labels = meta->find("labels");
    if (labels == meta->end() || !labels->is_object()) return {};
    auto value = labels->find(label);
    if (value == labels->end() || !value->is_string()) return {};
    return {value->get<std::string>()};
  };
}

}  // namespace gpupool::kube
