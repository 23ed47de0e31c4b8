// A thread-safe, indexed store of decoded objects keyed by "namespace/name".
// Objects are immutable once stored (shared_ptr<const T>), so readers keep
// what they got while the store moves on.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace gpupool::kube {

// Index values of one object: e.g. its node name for a "by node" index.
template <typename T>
using IndexFunc = std::function<std::vector<std::string>(const T&)>;

inline std::string ObjectKey(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

template <typename T>
class Cache {
 public:
  using Ptr = std::shared_ptr<const T>;

  // Indexes must be added before the first object.
  void AddIndex(const std::string& name, IndexFunc<T> func) {
    std::unique_lock lock(mutex_);
    indexes_.push_back({name, std::move(func), {}});
  }

  // Stores `object` under `key`; returns the object it replaced, if any.
  Ptr Put(const std::string& key, const std::string& ns, std::string resource_version, Ptr object) {
    std::unique_lock lock(mutex_);
    Entry& entry = entries_[key];
    Ptr old = std::move(entry.object);
    if (old) Unindex(key, *old);
    entry.object = std::move(object);
    entry.resource_version = std::move(resource_version);
    if (!old) by_namespace_[ns].insert(key);
    Index(key, entry);
    return old;
  }

  Ptr Remove(const std::string& key) {
    std::unique_lock lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return nullptr;
    Unindex(key, *it->second.object);
    Ptr old = std::move(it->second.object);
    entries_.erase(it);
    std::size_t slash = key.find('/');
    std::string ns = slash == std::string::npos ? "" : key.substr(0, slash);
    auto in_ns = by_namespace_.find(ns);
    if (in_ns != by_namespace_.end() && in_ns->second.erase(key) && in_ns->second.empty())
      by_namespace_.erase(in_ns);
    return old;
  }

  Ptr Get(const std::string& key) const {
    std::shared_lock lock(mutex_);
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : it->second.object;
  }

  // The stored resourceVersion of `key` ("" when absent).
  std::string ResourceVersion(const std::string& key) const {
    std::shared_lock lock(mutex_);
    auto it = entries_.find(key);
    return it == entries_.end() ? "" : it->second.resource_version;
  }

  std::vector<Ptr> List() const {
    std::shared_lock lock(mutex_);
    std::vector<Ptr> out;
    out.reserve(entries_.size());
    for (const auto& [key, entry] : entries_) out.push_back(entry.object);
    return out;
  }

  // Objects whose index `index` has `value`. "namespace" is always available.
  std::vector<Ptr> ByIndex(const std::string& index, const std::string& value) const {
    std::shared_lock lock(mutex_);
    std::vector<Ptr> out;
    if (index == "namespace") {
      auto it = by_namespace_.find(value);
      if (it != by_namespace_.end())
        for (const auto& key : it->second) out.push_back(entries_.at(key).object);
      return out;
    }
    for (const auto& idx : indexes_) {
      if (idx.name != index) continue;
      auto it = idx.keys.find(value);
      if (it == idx.keys.end()) return out;
      for (const auto& key : it->second) out.push_back(entries_.at(key).object);
      return out;
    }
    throw std::invalid_argument("no index named \"" + index + "\"");
  }

  // key → resourceVersion of every object.
  std::map<std::string, std::string> Versions() const {
    std::shared_lock lock(mutex_);
    std::map<std::string, std::string> out;
    for (const auto& [key, entry] : entries_) out[key] = entry.resource_version;
    return out;
  }

  std::size_t size() const {
    std::shared_lock lock(mutex_);
    return entries_.size();
  }

 private:
  struct Entry {
    Ptr object;
    std::string resource_version;
  };
  struct NamedIndex {
    std::string name;
    IndexFunc<T> func;
    std::unordered_map<std::string, std::unordered_set<std::string>> keys;
  };

  // Index values are recomputed from the (immutable) stored object on removal,
  // so nothing per object is kept for un-indexing.
  void Index(const std::string& key, const Entry& entry) {
    for (auto& idx : indexes_)
      for (const auto& value : idx.func(*entry.object)) idx.keys[value].insert(key);
  }
  void Unindex(const std::string& key, const T& object) {
    for (auto& idx : indexes_) {
      for (const auto& value : idx.func(object)) {
        auto it = idx.keys.find(value);
        if (it == idx.keys.end()) continue;
        it->second.erase(key);
        if (it->second.empty()) idx.keys.erase(it);
      }
    }
  }

  mutable std::shared_mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  std::vector<NamedIndex> indexes_;
  std::unordered_map<std::string, std::unordered_set<std::string>> by_namespace_;
};

}  // namespace gpupool::kube
