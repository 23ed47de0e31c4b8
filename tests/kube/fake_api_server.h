// A small loopback API server for the client tests: an in-memory object store
// for any group/version/resource, list with label selectors and pages, chunked
// watch streams with bookmarks, Status errors, and fault injection (queued
// error responses with Retry-After, cut watch streams, compaction → 410).
#pragma once

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace gpupool::kube::testing {

using Json = nlohmann::json;

struct RecordedRequest {
  std::string method;
  std::string path;
  std::map<std::string, std::string> query;
  std::string content_type;
  std::string authorization;
  std::string host;
  std::string body;
  int remote_port = 0;
  std::string client_cert_cn;  // Common name of the TLS client certificate, if any.
};

struct FakeTls {
  std::string cert_file, key_file;
  std::string client_ca_file;  // Non-empty: client certificates are required.
};

class FakeApiServer {
 public:
  explicit FakeApiServer(std::optional<FakeTls> tls = std::nullopt);
  ~FakeApiServer();

  std::string url() const;  // "http(s)://127.0.0.1:<port>"
  int port() const { return port_; }

  // Answers the next `count` requests (not watches) with `code` and a Status
  // body, adding "Retry-After: n" when `retry_after` is set.
  void FailNext(int count, int code, std::optional<int> retry_after = std::nullopt);
  // Forgets the failures FailNext queued and that are still to come.
  void ClearFailures();
  // Applies each of the next `count` requests (not watches) but cuts its
  // response half way, so the client cannot tell whether it was applied.
  void DropResponsesAfterApplying(int count);
  // Holds every request (not watches) this long before handling it.
  void SetResponseDelay(std::chrono::milliseconds delay);
  // Requires "Authorization: Bearer <token>" (401 otherwise); "" disables.
  void RequireToken(const std::string& token);
  // Drops every open watch stream mid-body (no terminating chunk).
  void CutWatches();
  // Forgets events up to now: watches from an older resourceVersion get 410.
  void Compact();
  // 410 for too-old watches as an ERROR event in a 200 stream (as the real API
  // server does) rather than as an HTTP 410 status.
  void SetGoneAsEvent(bool as_event) { gone_as_event_ = as_event; }
  // Cut each watch stream after a random number of events in [1, n]; 0: never.
  void CutWatchesRandomly(int max_events_per_stream, uint32_t seed);
  // While set, new watch requests get 503 (so writes can happen unseen).
  void RefuseWatches(bool refuse) { refuse_watches_ = refuse; }
  void SetBookmarkInterval(std::chrono::milliseconds interval) { bookmark_interval_ = interval; }
  // Whether discovery answers for events.k8s.io/v1 (else only core/v1 events).
  void ServeEventsV1(bool serve) { serve_events_v1_ = serve; }

  // Direct store access for tests (also emits watch events).
  Json Put(const std::string& resource_path, const Json& object);
  // Stores and compacts at once, so no open watch can send the change first:
  // every open watch must then end with 410.
  Json PutAndCompact(const std::string& resource_path, const Json& object);
  bool Remove(const std::string& resource_path, const std::string& ns, const std::string& name);
  std::map<std::string, Json> Objects(const std::string& resource_path);
  int64_t resource_version();

  std::vector<RecordedRequest> Requests();
  void ClearRequests();
  int open_watches() const { return open_watches_.load(); }
  int watches_started() const { return watches_started_.load(); }

 private:
  struct Event {
    int64_t rv;
    std::string type;
    std::string resource_path;
    Json object;
  };
  struct Route {
    std::string resource_path;  // "/api/v1/pods" (namespace removed)
    std::string ns, name, subresource;
  };

  void Handle(const httplib::Request& req, httplib::Response& res);
  void Answer(const httplib::Request& req, httplib::Response& res, bool watch);
  void Record(const httplib::Request& req);
  // Waits the response delay (ends early when the server stops).
  void Delay();
  // Whether this response is one to cut after applying its request.
  bool TakeDrop();
  bool Authorized(const httplib::Request& req, httplib::Response& res);
  bool Discovery(const std::string& path, httplib::Response& res);
  void List(const Route& route, const httplib::Request& req, httplib::Response& res);
  void Watch(const Route& route, const httplib::Request& req, httplib::Response& res);
  void Write(const Route& route, const httplib::Request& req, httplib::Response& res);
  void Delete(const Route& route, httplib::Response& res);
  void PostSubresourceLocked(const Route& route, const Json& body, httplib::Response& res);
  Json StoreLocked(const std::string& resource_path, Json object, const std::string& type);
  // Removes "ns/name" and logs a DELETED event; false when absent.
  bool RemoveLocked(const std::string& resource_path, const std::string& key);
  struct WatchState {
    Route route;
    std::string selector;
    int64_t cursor = -1;  // Highest resourceVersion scanned; -1: send the initial state first.
    int budget = -1;      // Events left before a random cut; -1: no cut.
    uint64_t generation = 0;
    bool bookmarks = false;
    std::chrono::steady_clock::time_point deadline, last_send;
  };
  enum class Step { kMore, kCut, kEnd };
  Step WatchStep(WatchState& state, httplib::DataSink& sink);
  // Events to send next (under the lock); sets `cut` when the stream must drop.
  std::vector<std::string> PendingLocked(WatchState& state, bool& cut);

  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  bool tls_ = false;

  std::mutex mutex_;
  std::condition_variable changed_;
  int64_t rv_ = 100;
  int64_t compacted_rv_ = 0;
  std::map<std::string, std::map<std::string, Json>> store_;  // resource → "ns/name" → object
  std::deque<Event> log_;
  std::vector<RecordedRequest> requests_;
  std::deque<std::pair<int, std::optional<int>>> failures_;
  std::string token_;
  int drops_left_ = 0;
  std::chrono::milliseconds response_delay_{0};
  uint64_t cut_generation_ = 0;
  int random_cut_max_ = 0;
  uint32_t random_state_ = 1;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> gone_as_event_{true};
  std::atomic<bool> refuse_watches_{false};
  std::atomic<bool> serve_events_v1_{true};
  std::atomic<int> open_watches_{0}, watches_started_{0};
  std::chrono::milliseconds bookmark_interval_{0};
  // Paged lists are served from a snapshot taken at the first page, as the
  // real server serves every page at the first page's resourceVersion.
  struct Snapshot {
    int64_t rv;
    std::vector<Json> items;
  };
  std::map<int, Snapshot> snapshots_;
  int next_snapshot_ = 0;
};

// "pods" Status JSON as the API server writes it.
Json MakeStatus(int code, const std::string& reason, const std::string& message);

}  // namespace gpupool::kube::testing
