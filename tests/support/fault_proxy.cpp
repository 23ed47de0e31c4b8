#include "fault_proxy.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gpupool::backends::testing {
namespace {

using Clock = std::chrono::steady_clock;

const char* const kForwardedHeaders[] = {"Authorization", "Content-Type", "Accept", "User-Agent"};

httplib::Headers ForwardedHeaders(const httplib::Request& request) {
  httplib::Headers headers;
  for (const char* name : kForwardedHeaders) {
    if (request.has_header(name)) headers.emplace(name, request.get_header_value(name));
  }
  return headers;
}

nlohmann::json Status(int code, const std::string& reason, const std::string& message) {
  return {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
          {"status", "Failure"}, {"message", message}, {"reason", reason},
          {"code", code}};
}

}  // namespace

// A member of FaultProxy::State, so outside the anonymous namespace.
// One watch passed through: the upstream stream's bytes, gathered by a
// thread of its own and written out by the proxy's response.
struct WatchPipe {
  std::mutex mutex;
  std::condition_variable changed;
  std::string pending;
  bool ended = false;
  int status = 0;
  std::atomic<bool> cancelled{false};
  std::unique_ptr<httplib::Client> client;
};

Faults Faults::FromSandboxFlags(const std::vector<std::string>& flags) {
  Faults faults;
  for (size_t i = 0; i + 1 < flags.size(); ++i) {
    if (flags[i] == "--fault-error-rate") faults.error_rate = std::stod(flags[i + 1]);
    if (flags[i] == "--fault-watch-cut") faults.watch_cut_seconds = std::stod(flags[i + 1]);
    if (flags[i] == "--fault-compact") faults.compact_seconds = std::stod(flags[i + 1]);
  }
  return faults;
}

struct FaultProxy::State {
  std::string upstream;
  Faults faults;
  Clock::time_point started = Clock::now();
  httplib::Server server;
  std::thread server_thread;
  std::mutex mutex;  // the random draws, watches and their threads
  std::mt19937_64 random;
  std::vector<std::shared_ptr<WatchPipe>> watches;
  std::vector<std::thread> watch_threads;
  std::atomic<uint64_t> errors{0}, cuts{0};

  std::unique_ptr<httplib::Client> Upstream() const {
    auto client = std::make_unique<httplib::Client>(upstream);
    client->enable_server_certificate_verification(false);
    client->set_read_timeout(3600, 0);
    return client;
  }

  // A refusal instead of the request, at the fault rate: 500, 503 or 429.
  int DrawError() {
    if (faults.error_rate <= 0) return 0;
    std::lock_guard lock(mutex);
    std::uniform_real_distribution<double> unit(0, 1);
    if (unit(random) >= faults.error_rate) return 0;
    static const int kCodes[] = {500, 503, 429};
    return kCodes[random() % 3];
  }

  uint64_t CompactionsSoFar() const {
    if (faults.compact_seconds <= 0) return 0;
    const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    return static_cast<uint64_t>(elapsed / faults.compact_seconds);
  }

  void Refuse(httplib::Response& response, int code) {
    ++errors;
    const std::string reason = code == 429   ? "TooManyRequests"
                               : code == 503 ? "ServiceUnavailable"
                                             : "InternalError";
    if (code != 500) response.set_header("Retry-After", "1");
    response.status = code;
    response.set_content(Status(code, reason, "injected fault (proxy)").dump(), "application/json");
  }

  void Forward(const httplib::Request& request, httplib::Response& response) {
    httplib::Request upstream_request;
    upstream_request.method = request.method;
    upstream_request.path = request.target;
    upstream_request.headers = ForwardedHeaders(request);
    upstream_request.body = request.body;
    const auto result = Upstream()->send(upstream_request);
    if (!result) {
      response.status = 502;
      response.set_content(Status(502, "InternalError", "the proxy lost the server").dump(),
                           "application/json");
      return;
    }
    response.status = result->status;
    for (const char* name : {"Warning", "Retry-After"}) {
      const auto range = result->headers.equal_range(name);
      for (auto it = range.first; it != range.second; ++it)
        response.headers.emplace(name, it->second);
    }
    response.set_content(result->body, result->get_header_value("Content-Type"));
  }

  // A watch: passed on as the server streams it, until the server ends it, the
  // cut comes or a compaction expires it.
  void Watch(const httplib::Request& request, httplib::Response& response);
  std::shared_ptr<WatchPipe> OpenUpstream(const httplib::Request& request);
  bool PassOn(WatchPipe& pipe, httplib::DataSink& sink, Clock::time_point cut_at,
              uint64_t compactions);
};

std::shared_ptr<WatchPipe> FaultProxy::State::OpenUpstream(const httplib::Request& request) {
  auto pipe = std::make_shared<WatchPipe>();
  pipe->client = Upstream();
  std::lock_guard lock(mutex);
  watches.push_back(pipe);
  watch_threads.emplace_back([pipe, headers = ForwardedHeaders(request), target = request.target] {
    const auto notify = [&](const std::function<void()>& change) {
      std::lock_guard lock(pipe->mutex);
      change();
      pipe->changed.notify_all();
    };
    pipe->client->Get(
        target, headers,
        [&](const httplib::Response& answer) {
          notify([&] { pipe->status = answer.status; });
          return true;
        },
        [&](const char* data, size_t size) {
          notify([&] { pipe->pending.append(data, size); });
          return !pipe->cancelled;
        });
    notify([&] { pipe->ended = true; });
  });
  return pipe;
}

void FaultProxy::State::Watch(const httplib::Request& request, httplib::Response& response) {
  auto pipe = OpenUpstream(request);
  {
    std::unique_lock lock(pipe->mutex);
    pipe->changed.wait_for(lock, std::chrono::seconds(30),
                           [&] { return pipe->status || pipe->ended; });
    if (pipe->status != 200) {
      // A refused watch (410, 500 for a malformed version, ...): its whole answer.
      pipe->changed.wait_for(lock, std::chrono::seconds(30), [&] { return pipe->ended; });
      response.status = pipe->status ? pipe->status : 502;
      response.set_content(pipe->pending, "application/json");
      return;
    }
  }
  const auto cut_at =
      faults.watch_cut_seconds > 0
          ? Clock::now() +
                std::chrono::milliseconds(static_cast<int64_t>(faults.watch_cut_seconds * 1000))
          : Clock::time_point::max();
  response.set_chunked_content_provider(
      "application/json",
      [this, pipe, cut_at, compactions = CompactionsSoFar()](size_t, httplib::DataSink& sink) {
        return PassOn(*pipe, sink, cut_at, compactions);
      },
      [pipe](bool) {
        pipe->cancelled = true;
        pipe->client->stop();
      });
}

// One call of the response's provider: what came from the server since the
// last, then the end if it is due. False drops the client's connection.
bool FaultProxy::State::PassOn(WatchPipe& pipe, httplib::DataSink& sink, Clock::time_point cut_at,
                               uint64_t compactions) {
  std::string out;
  bool ended = false;
  {
    std::unique_lock lock(pipe.mutex);
    pipe.changed.wait_for(lock, std::chrono::milliseconds(200),
                          [&] { return !pipe.pending.empty() || pipe.ended; });
    out.swap(pipe.pending);
    ended = pipe.ended;
  }
  if (!out.empty() && !sink.write(out.data(), out.size())) return false;
  if (CompactionsSoFar() > compactions) {
    const auto expired =
        Status(410, "Expired", "too old resource version (compacted by the proxy)");
    const std::string line = nlohmann::json{{"type", "ERROR"}, {"object", expired}}.dump() + "\n";
    ++cuts;
    sink.write(line.data(), line.size());
    sink.done();
    return true;
  }
  const bool cut = Clock::now() >= cut_at;
  if (cut) ++cuts;
  if (ended || cut) sink.done();
  return true;
}

FaultProxy::FaultProxy(const TestCluster& upstream, Faults faults)
    : state_(std::make_shared<State>()) {
  State& state = *state_;
  state.upstream = upstream.server();
  state.faults = faults;
  state.random.seed(faults.seed);
  state.server.new_task_queue = [] { return new httplib::ThreadPool(64); };
  const auto handle = [&state](const httplib::Request& request, httplib::Response& response) {
    if (const int code = state.DrawError()) return state.Refuse(response, code);
    const std::string watch = request.get_param_value("watch");
    if (request.method == "GET" && (watch == "true" || watch == "1")) {
      return state.Watch(request, response);
    }
    state.Forward(request, response);
  };
  state.server.Get(".*", handle);
  state.server.Post(".*", handle);
  state.server.Put(".*", handle);
  state.server.Patch(".*", handle);
  state.server.Delete(".*", handle);
  const int port = state.server.bind_to_any_port("127.0.0.1");
  if (port <= 0) throw std::runtime_error("the fault proxy could not bind a port");
  state.server_thread = std::thread([&state] { state.server.listen_after_bind(); });
  kubeconfig_ = upstream.dir() + "/fault-proxy-" + std::to_string(port) + ".kubeconfig";
  std::ofstream(kubeconfig_)
      << "apiVersion: v1\nkind: Config\n"
      << "clusters:\n- name: proxy\n  cluster:\n    server: http://127.0.0.1:" << port << "\n"
      << "users:\n- name: admin\n  user:\n    token: " << upstream.admin_token()
      << "\ncontexts:\n- name: proxy\n  context:\n    cluster: proxy\n"
      << "    user: admin\ncurrent-context: proxy\n";
}

FaultProxy::~FaultProxy() {
  State& state = *state_;
  state.server.stop();
  if (state.server_thread.joinable()) state.server_thread.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(state.mutex);
    for (auto& pipe : state.watches) {
      pipe->cancelled = true;
      pipe->client->stop();
    }
    threads.swap(state.watch_threads);
  }
  for (auto& thread : threads) thread.join();
}

uint64_t FaultProxy::errors_injected() const { return state_->errors; }
uint64_t FaultProxy::watches_cut() const { return state_->cuts; }

}  // namespace gpupool::backends::testing
