// End-to-end figures of the sandbox API server, measured over HTTP against a
// real `gpupool sandbox` process:
//   writes  - small ConfigMap creates per second from W writer connections
//             while 10 watchers receive every event (events/s delivered);
//   memory  - resident memory of the server holding N pods;
//   watches - how long `GET /api/v1/nodes` takes while N watches stay open.
// Usage: sandbox_bench writes [seconds] [writers] [--tls]
//        sandbox_bench memory [pods]
//        sandbox_bench watches [watches]
#include <httplib.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
const std::string kToken = "bench-token";

struct Server {
  pid_t pid = -1;
  int port = 0;
  bool tls = false;

  explicit Server(bool use_tls, const std::vector<std::string>& extra_args = {}) : tls(use_tls) {
    const std::string port_file = "/tmp/gpupool-sandbox-bench-port-" + std::to_string(getpid());
    std::remove(port_file.c_str());
    std::vector<std::string> args = {GPUPOOL_BINARY, "sandbox", "--port",  "0",
                                     "--port-file",  port_file, "--token", kToken,
                                     "--threads",    "64"};
    if (!tls) args.push_back("--plain-http");
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    pid = fork();
    if (pid == 0) {
      std::vector<char*> argv;
      for (auto& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      if (!freopen("/dev/null", "w", stdout)) _exit(127);
      execv(argv[0], argv.data());
      _exit(127);
    }
    for (int i = 0; i < 400 && port == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
      std::ifstream(port_file) >> port;
    }
    std::remove(port_file.c_str());
    if (port == 0) throw std::runtime_error("the sandbox did not start");
  }
  ~Server() {
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
  }
  std::unique_ptr<httplib::Client> Client() const {
    auto client = std::make_unique<httplib::Client>(std::string(tls ? "https" : "http") +
                                                    "://127.0.0.1:" + std::to_string(port));
    client->enable_server_certificate_verification(false);
    client->set_bearer_token_auth(kToken.c_str());
    client->set_keep_alive(true);
    client->set_tcp_nodelay(true);
    client->set_read_timeout(120, 0);
    return client;
  }
  long RssKb() const {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
    }
    return -1;
  }
};

int Writes(double seconds, int writers, bool tls) {
  Server server(tls);
  const int kWatchers = 10;
  std::atomic<long> events{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWatchers; ++w) {
    threads.emplace_back([&] {
      auto client = server.Client();
      client->Get("/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=600",
                  [&](const char* data, size_t size) {
                    events += std::count(data, data + size, '\n');
                    return !stop.load();
                  });
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::atomic<long> writes{0}, failures{0};
  const auto start = Clock::now();
  const auto end = start + std::chrono::milliseconds(static_cast<long>(seconds * 1000));
  std::vector<std::thread> writer_threads;
  for (int w = 0; w < writers; ++w) {
    writer_threads.emplace_back([&, w] {
      auto client = server.Client();
      for (long i = 0; Clock::now() < end; ++i) {
        const std::string body = R"({"metadata":{"name":"cm-)" + std::to_string(w) + "-" +
                                 std::to_string(i) + R"("},"data":{"k":"v"}})";
        auto response =
            client->Post("/api/v1/namespaces/default/configmaps", body, "application/json");
        (response && response->status == 201 ? writes : failures)++;
      }
    });
  }
  for (auto& thread : writer_threads) thread.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  // Let the watchers drain what is still queued, then count.
  const long expected = writes.load() * kWatchers;
  for (int i = 0; i < 100 && events.load() < expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const double drained = std::chrono::duration<double>(Clock::now() - start).count();
  stop = true;
  auto client = server.Client();  // wakes the watchers with one more event
  client->Post("/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"last"}})",
               "application/json");
  for (auto& thread : threads) thread.join();
  std::printf("transport=%s writers=%d watchers=%d seconds=%.1f writes=%ld failures=%ld\n",
              tls ? "https" : "http", writers, kWatchers, elapsed, writes.load(), failures.load());
  std::printf("writes/s=%.0f events delivered=%ld of %ld events/s=%.0f rss_mb=%.1f\n",
              static_cast<double>(writes.load()) / elapsed, std::min(events.load(), expected),
              expected, static_cast<double>(std::min(events.load(), expected)) / drained,
              static_cast<double>(server.RssKb()) / 1024.0);
  return failures.load() == 0 ? 0 : 1;
}

int Memory(long pods) {
  Server server(false);
  const long before = server.RssKb();
  const int kThreads = 4;
  std::vector<std::thread> threads;
  std::atomic<long> failures{0};
  const auto start = Clock::now();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto client = server.Client();
      for (long i = t; i < pods; i += kThreads) {
        // A gated pod of a gang, as the operator creates them.
        nlohmann::json pod = {
            {"metadata",
             {{"name", "job-" + std::to_string(i / 8) + "-" + std::to_string(i % 8)},
              {"labels", {{"gpupool.dev/job", "job-" + std::to_string(i / 8)}}}}},
            {"spec",
             {{"schedulingGates", {{{"name", "gpupool.dev/admission"}}}},
              {"containers",
               {{{"name", "trainer"},
                 {"image", "pytorch/pytorch:2.3.0"},
                 {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}}}}}}};
        auto response =
            client->Post("/api/v1/namespaces/default/pods", pod.dump(), "application/json");
        if (!response || response->status != 201) failures++;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  std::printf(
      "pods=%ld failures=%ld create_seconds=%.1f creates/s=%.0f rss_before_mb=%.1f rss_mb=%.1f\n",
      pods, failures.load(), elapsed, static_cast<double>(pods) / elapsed,
      static_cast<double>(before) / 1024.0, static_cast<double>(server.RssKb()) / 1024.0);
  return failures.load() == 0 ? 0 : 1;
}

// Opens `count` watches (each its own connection, as many clients would), then
// times 20 lists of the 64 nodes on another connection beside them.
int Watches(int count) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {  // One descriptor per watch, here and there.
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
  Server server(false, {"--nodes", "64x8"});
  std::vector<std::unique_ptr<httplib::Client>> watchers;
  std::vector<std::thread> threads;
  std::atomic<int> opened{0};
  for (int i = 0; i < count; ++i) {
    watchers.push_back(server.Client());
    threads.emplace_back([&, client = watchers.back().get()] {
      client->Get(
          "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=30",
          [&](const httplib::Response&) {
            ++opened;
            return true;
          },
          [](const char*, size_t) { return true; });
    });
  }
  for (int i = 0; i < 600 && opened < count; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto client = server.Client();
  std::vector<double> ms;
  for (int i = 0; i < 20; ++i) {
    const auto start = Clock::now();
    auto response = client->Get("/api/v1/nodes");
    if (!response || response->status != 200) return 1;
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("watches=%d open=%d get_nodes_ms median=%.1f max=%.1f rss_mb=%.1f\n", count,
              opened.load(), ms[ms.size() / 2], ms.back(),
              static_cast<double>(server.RssKb()) / 1024.0);
  for (auto& watcher : watchers) watcher->stop();
  for (auto& thread : threads) thread.join();
  return opened == count ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "writes") {
      const bool tls = argc > 4 && std::string(argv[4]) == "--tls";
      return Writes(argc > 2 ? std::atof(argv[2]) : 10, argc > 3 ? std::atoi(argv[3]) : 4, tls);
    }
    if (mode == "memory") return Memory(argc > 2 ? std::atol(argv[2]) : 100000);
    if (mode == "watches") return Watches(argc > 2 ? std::atoi(argv[2]) : 1000);
  } catch (const std::exception& error) {
    std::cerr << "sandbox_bench: " << error.what() << "\n";
    return 1;
  }
  std::cerr << "usage: sandbox_bench writes [seconds] [writers] [--tls] | memory [pods] | "
               "watches [watches]\n";
  return 2;
}
