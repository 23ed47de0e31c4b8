#include <spdlog/spdlog.h>

#include <thread>

#include "failure_log.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/observer.h"
#include "gpupool/kube/watch.h"

namespace gpupool::kube {

void SleepUnlessStopped(const std::atomic<bool>& stop, Millis duration) {
  auto deadline = Clock::now() + duration;
  while (!stop.load() && Clock::now() < deadline) {
    auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now());
    std::this_thread::sleep_for(std::min(left, Millis(10)));
  }
}

Reflector::Reflector(Client& client, Resource resource, std::string ns, ListWatchOptions options,
                     ListWatchSink& sink)
    : client_(client),
      resource_(std::move(resource)),
      namespace_(std::move(ns)),
      options_(std::move(options)),
      sink_(sink) {}

std::string Reflector::last_resource_version() const {
  std::lock_guard lock(mutex_);
  return resource_version_;
}

ReflectorStats Reflector::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void Reflector::SetResourceVersion(const std::string& rv) {
  std::lock_guard lock(mutex_);
  resource_version_ = rv;
}

void Reflector::Pause(const std::atomic<bool>& stop, Millis duration) {
  auto deadline = Clock::now() + duration;
  while (!stop.load() && !client_.transport().cancelled() && Clock::now() < deadline) {
    auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now());
    std::this_thread::sleep_for(std::min(left, Millis(10)));
  }
}

void Reflector::Run(const std::atomic<bool>& stop) {
  Backoff backoff(options_.backoff);
  internal::FailureLog failures;
  bool need_list = true;
  while (!stop.load()) {
    bool listing = need_list;
    const auto began = Clock::now();
    try {
      if (need_list) {
        ListAndReplace();
        need_list = false;
        failures.Healed();
      }
      auto started = Clock::now();
      bool progressed = WatchOnce(stop);
      if (progressed) failures.Healed();
      // A watch that ends at once with nothing to say is backed off like a
      // failure, so a misbehaving server is not hammered.
      if (progressed || Clock::now() - started > Millis(1'000)) {
        backoff.Reset();
      } else {
        Pause(stop, backoff.Next());
      }
    } catch (const ApiError& error) {
      if (IsCancelled(error)) return;  // The client is shutting down.
      std::lock_guard lock(mutex_);
      if (IsGone(error) && !listing) {
        ++stats_.gone;
        need_list = true;  // Our resourceVersion is too old: start again from a list.
        spdlog::debug("watch {}: {}; re-listing", resource_.resource, error.what());
        continue;
      }
      // A list that fails, even with 410 (an expired continue token), backs off.
      if (IsGone(error)) ++stats_.gone;
      ++stats_.errors;
      // Drops and overload heal by themselves; anything else (RBAC, a missing
      // resource) needs a person, so say it loudly.
      if (!error.IsRetryable() && error.reason() != Reason::kTimeout)
        spdlog::warn("watch {}: {}", resource_.resource, error.what());
      else if (const auto seconds = failures.Failed(began, Clock::now()); seconds > 0)
        spdlog::warn("watch {}: {} (failing for {} s; retrying)", resource_.resource, error.what(),
                     seconds);
      else
        spdlog::debug("watch {}: {}", resource_.resource, error.what());
    } catch (const std::exception& error) {
      // A decode or handler failure mid-stream: the cache may have missed an
      // event, so start again from a list.
      std::lock_guard lock(mutex_);
      ++stats_.errors;
      need_list = true;
      spdlog::warn("watch {}: {}; re-listing", resource_.resource, error.what());
    }
    Pause(stop, backoff.Next());
  }
}

void Reflector::ListAndReplace() {
  ListOptions list_options{options_.label_selector, options_.field_selector, options_.page_size};
  ListPage page = client_.ListAll(resource_, namespace_, list_options);
  const auto unread = UnreadMembers(options_);
  std::vector<Json> items;
  items.reserve(page.items.size());
  for (auto& item : page.items) {
    for (const auto& path : unread) json::EraseMember(item, path);
    items.push_back(std::move(item));
  }
  sink_.Replace(std::move(items), page.resource_version);
  SetResourceVersion(page.resource_version);
  std::lock_guard lock(mutex_);
  ++stats_.lists;
}

bool Reflector::WatchOnce(const std::atomic<bool>& stop) {
  std::string query =
      QueryString({{"watch", "true"},
                   {"resourceVersion", last_resource_version()},
                   {"allowWatchBookmarks", options_.bookmarks ? "true" : ""},
                   {"timeoutSeconds", std::to_string(options_.watch_timeout_seconds)},
                   {"labelSelector", options_.label_selector},
                   {"fieldSelector", options_.field_selector}});
  bool restart = false;
  {
    std::lock_guard lock(mutex_);
    restart = stats_.watches++ > 0;
  }
  const auto& observer = client_.transport().options().observer;
  if (restart && observer) observer->OnWatchRestart(resource_.resource);
  WatchDecoder decoder(UnreadMembers(options_));
  bool progressed = false;
  auto on_event = [&](WatchEvent&& event) {
    progressed = true;
    HandleEvent(std::move(event));
  };
  // Exceptions must not cross libcurl's C callbacks: keep the first one, end
  // the stream, and rethrow it here.
  std::exception_ptr failure;
  auto on_data = [&](std::string_view bytes) {
    try {
      decoder.Feed(bytes, on_event);
      return true;
    } catch (...) {
      failure = std::current_exception();
      return false;
    }
  };
  client_.transport().Stream({"GET", resource_.Path(namespace_) + query}, on_data, stop,
                             options_.idle_timeout);
  if (failure) std::rethrow_exception(failure);
  return progressed;
}

void Reflector::HandleEvent(WatchEvent&& event) {
  if (event.type == EventType::kError) {
    const Json& status = event.object;
    int code = status.value("code", 0);
    throw DecodeStatusError(code == 0 ? 500 : code, status.dump(), "watch " + resource_.resource);
  }
  std::string rv = ResourceVersionOf(event.object);
  if (event.type != EventType::kBookmark) {
    sink_.Apply(std::move(event));
    std::lock_guard lock(mutex_);
    ++stats_.events;
  }
  if (!rv.empty()) SetResourceVersion(rv);
}

}  // namespace gpupool::kube
