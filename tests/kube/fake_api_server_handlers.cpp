// Request handling of the fake API server: routing, list, watch and writes.
#include <algorithm>

#include "fake_api_server.h"

namespace gpupool::kube::testing {
namespace {

void Reply(httplib::Response& res, int code, const Json& body) {
  res.status = code;
  res.set_content(body.dump(), "application/json");
}

void ReplyStatus(httplib::Response& res, int code, const std::string& reason,
                 const std::string& message) {
  Reply(res, code, MakeStatus(code, reason, message));
}

std::string ReasonForCode(int code) {
  switch (code) {
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    default:
      return "BadRequest";
  }
}

}  // namespace

bool SelectorMatches(const Json& object, const std::string& selector);

namespace {
bool Matches(const Json& object, const std::string& ns, const std::string& selector) {
  if (!ns.empty() && object["metadata"].value("namespace", "") != ns) return false;
  return selector.empty() || SelectorMatches(object, selector);
}
}  // namespace

namespace {

// Replaces a complete response by its first half and a cut connection.
void CutHalfWay(httplib::Response& res) {
  auto half = std::make_shared<std::string>(res.body.substr(0, res.body.size() / 2));
  res.body.clear();
  res.set_chunked_content_provider("application/json", [half](size_t, httplib::DataSink& sink) {
    sink.write(half->data(), half->size());
    return false;  // No terminating chunk: the client sees a cut transfer.
  });
}

}  // namespace

void FakeApiServer::Handle(const httplib::Request& req, httplib::Response& res) {
  bool watch = req.get_param_value("watch") == "true" || req.get_param_value("watch") == "1";
  Answer(req, res, watch);
  if (!watch && TakeDrop()) CutHalfWay(res);
}

void FakeApiServer::Answer(const httplib::Request& req, httplib::Response& res, bool watch) {
  Record(req);
  if (!Authorized(req, res)) return;
  if (!watch) Delay();
  if (!watch) {
    std::unique_lock lock(mutex_);
    if (!failures_.empty()) {
      auto [code, retry_after] = failures_.front();
      failures_.pop_front();
      lock.unlock();
      if (retry_after) res.set_header("Retry-After", std::to_string(*retry_after));
      return ReplyStatus(res, code, ReasonForCode(code), "injected failure");
    }
  }
  if (req.method == "GET" && Discovery(req.path, res)) return;
  std::vector<std::string> parts;
  {
    std::stringstream stream(req.path);
    for (std::string part; std::getline(stream, part, '/');)
      if (!part.empty()) parts.push_back(part);
  }
  std::size_t base = parts.size() > 0 && parts[0] == "api" ? 2 : 3;
  if (parts.size() <= base) return ReplyStatus(res, 404, "NotFound", "no such path " + req.path);
  Route route;
  std::vector<std::string> rest(parts.begin() + static_cast<long>(base), parts.end());
  if (rest[0] == "namespaces" && rest.size() >= 3) {
    route.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  route.resource_path = "/";
  for (std::size_t i = 0; i < base; ++i) route.resource_path += parts[i] + "/";
  route.resource_path += rest[0];
  if (rest.size() > 1) route.name = rest[1];
  if (rest.size() > 2) route.subresource = rest[2];
  if (req.method == "GET" && route.name.empty()) {
    return watch ? Watch(route, req, res) : List(route, req, res);
  }
  if (req.method == "GET") {
    std::lock_guard lock(mutex_);
    auto& objects = store_[route.resource_path];
    auto it = objects.find(route.ns + "/" + route.name);
    if (it == objects.end())
      return ReplyStatus(res, 404, "NotFound", rest[0] + " \"" + route.name + "\" not found");
    return Reply(res, 200, it->second);
  }
  if (req.method == "DELETE") return Delete(route, res);
  Write(route, req, res);
}

void FakeApiServer::List(const Route& route, const httplib::Request& req, httplib::Response& res) {
  std::string selector = req.get_param_value("labelSelector");
  int64_t limit = req.has_param("limit") ? std::stoll(req.get_param_value("limit")) : 0;
  std::string token = req.get_param_value("continue");
  std::lock_guard lock(mutex_);
  Snapshot snapshot;
  std::size_t offset = 0;
  int id = 0;
  if (!token.empty()) {
    id = std::stoi(token.substr(0, token.find(':')));
    offset = std::stoul(token.substr(token.find(':') + 1));
    auto it = snapshots_.find(id);
    if (it == snapshots_.end() || it->second.rv < compacted_rv_)
      return ReplyStatus(res, 410, "Expired", "The provided continue parameter is too old");
    snapshot = it->second;
  } else {
    snapshot.rv = rv_;
    for (const auto& [key, object] : store_[route.resource_path])
      if (Matches(object, route.ns, selector)) snapshot.items.push_back(object);
    id = ++next_snapshot_;
  }
  Json list = {{"kind", "List"},
               {"apiVersion", "v1"},
               {"items", Json::array()},
               {"metadata", {{"resourceVersion", std::to_string(snapshot.rv)}}}};
  std::size_t end = limit > 0
                        ? std::min(snapshot.items.size(), offset + static_cast<std::size_t>(limit))
                        : snapshot.items.size();
  for (std::size_t i = offset; i < end; ++i) list["items"].push_back(snapshot.items[i]);
  if (end < snapshot.items.size()) {
    list["metadata"]["continue"] = std::to_string(id) + ":" + std::to_string(end);
    snapshots_[id] = std::move(snapshot);
  } else {
    snapshots_.erase(id);
  }
  Reply(res, 200, list);
}

void FakeApiServer::Watch(const Route& route, const httplib::Request& req, httplib::Response& res) {
  if (refuse_watches_) return ReplyStatus(res, 503, "ServiceUnavailable", "watches refused");
  ++watches_started_;
  auto state = std::make_shared<WatchState>();
  state->route = route;
  state->selector = req.get_param_value("labelSelector");
  state->bookmarks = req.get_param_value("allowWatchBookmarks") == "true";
  std::string rv_text = req.get_param_value("resourceVersion");
  int timeout =
      req.has_param("timeoutSeconds") ? std::stoi(req.get_param_value("timeoutSeconds")) : 0;
  state->cursor = rv_text.empty() || rv_text == "0" ? -1 : std::stoll(rv_text);
  state->last_send = std::chrono::steady_clock::now();
  state->deadline = state->last_send + std::chrono::seconds(timeout > 0 ? timeout : 3600);
  {
    std::lock_guard lock(mutex_);
    state->generation = cut_generation_;
    if (state->cursor >= 0 && state->cursor < compacted_rv_ && !gone_as_event_)
      return ReplyStatus(res, 410, "Expired", "too old resource version: " + rv_text);
    if (random_cut_max_ > 0) {
      random_state_ = random_state_ * 1103515245u + 12345u;
      state->budget =
          1 + static_cast<int>((random_state_ >> 8) % static_cast<uint32_t>(random_cut_max_));
    }
  }
  res.set_chunked_content_provider("application/json",
                                   [this, state](size_t, httplib::DataSink& sink) {
                                     ++open_watches_;
                                     Step step = WatchStep(*state, sink);
                                     --open_watches_;
                                     if (step == Step::kCut) return false;  // No final chunk.
                                     if (step == Step::kEnd) sink.done();
                                     return true;
                                   });
}

std::vector<std::string> FakeApiServer::PendingLocked(WatchState& state, bool& cut) {
  std::vector<std::string> lines;
  if (state.cursor == -1) {  // No resourceVersion: the current state as ADDED events first.
    for (const auto& [key, object] : store_[state.route.resource_path])
      if (Matches(object, state.route.ns, state.selector))
        lines.push_back(Json{{"type", "ADDED"}, {"object", object}}.dump() + "\n");
    state.cursor = rv_;
    return lines;
  }
  if (state.cursor < compacted_rv_) {  // Events this watch still needed are gone.
    lines.push_back(
        Json{{"type", "ERROR"}, {"object", MakeStatus(410, "Expired", "too old resource version")}}
            .dump() +
        "\n");
    cut = true;
    return lines;
  }
  auto first = std::upper_bound(log_.begin(), log_.end(), state.cursor,
                                [](int64_t rv, const Event& event) { return rv < event.rv; });
  for (auto it = first; it != log_.end(); ++it) {
    state.cursor = it->rv;
    if (it->resource_path != state.route.resource_path ||
        !Matches(it->object, state.route.ns, state.selector))
      continue;
    lines.push_back(Json{{"type", it->type}, {"object", it->object}}.dump() + "\n");
    if (state.budget > 0 && --state.budget == 0) {
      cut = true;
      break;
    }
  }
  if (!cut) state.cursor = std::max(state.cursor, rv_);
  return lines;
}

FakeApiServer::Step FakeApiServer::WatchStep(WatchState& state, httplib::DataSink& sink) {
  auto now = std::chrono::steady_clock::now();
  if (stopping_) return Step::kCut;
  if (now >= state.deadline) return Step::kEnd;
  std::vector<std::string> lines;
  bool cut = false;
  {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::milliseconds(20), [&] {
      return stopping_ || cut_generation_ != state.generation || state.cursor < rv_ ||
             state.cursor < compacted_rv_;
    });
    if (cut_generation_ != state.generation) return Step::kCut;
    lines = PendingLocked(state, cut);
    if (lines.empty() && state.bookmarks && bookmark_interval_.count() > 0 &&
        now - state.last_send > bookmark_interval_) {
      Json object = {{"kind", "Bookmark"},
                     {"metadata", {{"resourceVersion", std::to_string(state.cursor)}}}};
      lines.push_back(Json{{"type", "BOOKMARK"}, {"object", object}}.dump() + "\n");
    }
  }
  for (const auto& line : lines) {
    if (!sink.write(line.data(), line.size())) return Step::kCut;
    state.last_send = now;
  }
  return cut ? Step::kCut : Step::kMore;
}

void FakeApiServer::Write(const Route& route, const httplib::Request& req, httplib::Response& res) {
  Json body = Json::parse(req.body, nullptr, false);
  if (body.is_discarded()) return ReplyStatus(res, 400, "BadRequest", "body is not JSON");
  std::lock_guard lock(mutex_);
  auto& objects = store_[route.resource_path];
  if (req.method == "POST" && !route.subresource.empty())
    return PostSubresourceLocked(route, body, res);
  if (req.method == "POST") {
    if (!body.contains("metadata") || body["metadata"].value("name", "").empty()) {
      Json status = MakeStatus(422, "Invalid", "metadata.name: Required value");
      status["details"]["causes"] = Json::array({{{"reason", "FieldValueRequired"},
                                                  {"message", "Required value"},
                                                  {"field", "metadata.name"}}});
      return Reply(res, 422, status);
    }
    if (!route.ns.empty()) body["metadata"]["namespace"] = route.ns;
    if (objects.count(route.ns + "/" + body["metadata"].value("name", "")))
      return ReplyStatus(res, 409, "AlreadyExists",
                         "\"" + body["metadata"].value("name", "") + "\" already exists");
    return Reply(res, 201, StoreLocked(route.resource_path, body, "ADDED"));
  }
  auto it = objects.find(route.ns + "/" + route.name);
  if (it == objects.end())
    return ReplyStatus(res, 404, "NotFound", "\"" + route.name + "\" not found");
  Json updated = it->second;
  if (req.method == "PUT") {
    std::string rv = body["metadata"].value("resourceVersion", "");
    if (!rv.empty() && rv != it->second["metadata"].value("resourceVersion", ""))
      return ReplyStatus(res, 409, "Conflict",
                         "the object has been modified; please apply your changes to the latest "
                         "version and try again");
    if (route.subresource == "status") {
      updated["status"] = body.value("status", Json::object());
    } else {
      body["status"] = updated.value("status", Json::object());
      body["metadata"]["uid"] = updated["metadata"]["uid"];
      updated = body;
    }
  } else if (req.get_header_value("Content-Type") == "application/json-patch+json") {
    try {
      updated = updated.patch(body);
    } catch (const std::exception& e) {
      return ReplyStatus(res, 422, "Invalid", e.what());
    }
  } else {
    std::string rv = body.contains("metadata") && body["metadata"].is_object()
                         ? body["metadata"].value("resourceVersion", "")
                         : "";
    if (!rv.empty() && rv != it->second["metadata"].value("resourceVersion", ""))
      return ReplyStatus(res, 409, "Conflict", "the object has been modified (precondition)");
    updated.merge_patch(body);
  }
  Reply(res, 200, StoreLocked(route.resource_path, updated, "MODIFIED"));
}

void FakeApiServer::PostSubresourceLocked(const Route& route, const Json& body,
                                          httplib::Response& res) {
  auto& objects = store_[route.resource_path];
  if (route.subresource == "eviction") {
    if (!RemoveLocked(route.resource_path, route.ns + "/" + route.name))
      return ReplyStatus(res, 404, "NotFound", "pods \"" + route.name + "\" not found");
    return Reply(res, 201, MakeStatus(201, "", ""));
  }
  if (route.subresource == "binding") {
    auto it = objects.find(route.ns + "/" + route.name);
    if (it == objects.end())
      return ReplyStatus(res, 404, "NotFound", "pods \"" + route.name + "\" not found");
    Json object = it->second;
    object["spec"]["nodeName"] = body["target"].value("name", "");
    StoreLocked(route.resource_path, object, "MODIFIED");
    return Reply(res, 201, MakeStatus(201, "", ""));
  }
  ReplyStatus(res, 404, "NotFound", "no subresource " + route.subresource);
}

void FakeApiServer::Delete(const Route& route, httplib::Response& res) {
  std::lock_guard lock(mutex_);
  if (!RemoveLocked(route.resource_path, route.ns + "/" + route.name))
    return ReplyStatus(res, 404, "NotFound", "\"" + route.name + "\" not found");
  Json status = MakeStatus(200, "", "");
  status["status"] = "Success";
  Reply(res, 200, status);
}

}  // namespace gpupool::kube::testing
