// Requests per second through one Client (shared by 1 or 4 threads): against
// an in-process loopback server (the client's own ceiling) and, when
// GPUPOOL_SANDBOX_KUBECONFIG names a running `gpupool sandbox`'s kubeconfig,
// against the sandbox over HTTPS.
#include <benchmark/benchmark.h>
#include <httplib.h>

#include <cstdlib>
#include <thread>

#include "gpupool/kube/client.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/errors.h"
#include "pod_fixture.h"

namespace gpupool::kube::bench {
namespace {

TransportOptions Unlimited() {
  TransportOptions options;
  options.qps = 0;  // Measure the client, not its limiter.
  return options;
}

struct LoopbackServer {
  LoopbackServer() {
    body = MakePod(1, 1000).dump();
    server.set_tcp_nodelay(true);
    server.set_keep_alive_max_count(1'000'000);
    server.Get(".*", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(body, "application/json");
    });
    port = server.bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { server.listen_after_bind(); });
    while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LoopbackServer() {
    server.stop();
    thread.join();
  }
  httplib::Server server;
  std::string body;
  int port = 0;
  std::thread thread;
};

void BM_RequestsLoopback(benchmark::State& state) {
  static LoopbackServer* server = nullptr;
  static Client* client = nullptr;
  if (state.thread_index() == 0) {
    server = new LoopbackServer();
    RestConfig config;
    config.server = "http://127.0.0.1:" + std::to_string(server->port);
    client = new Client(config, Unlimited());
  }
  for (auto _ : state) benchmark::DoNotOptimize(client->Get(resources::kPods, "a", "p"));
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    delete client;
    delete server;
  }
}
BENCHMARK(BM_RequestsLoopback)->Threads(1)->Threads(4)->UseRealTime()->MinTime(2.0);

void BM_RequestsSandbox(benchmark::State& state) {
  const char* kubeconfig = std::getenv("GPUPOOL_SANDBOX_KUBECONFIG");
  if (!kubeconfig) {
    state.SkipWithError("set GPUPOOL_SANDBOX_KUBECONFIG to a running sandbox's kubeconfig");
    return;
  }
  static Client* client = nullptr;
  if (state.thread_index() == 0) {
    client = new Client(LoadKubeconfig({kubeconfig}), Unlimited());
    Json pod = MakePod(1, 0);
    pod["metadata"] = {{"name", "bench-pod"}};
    pod.erase("status");
    pod["spec"].erase("nodeName");
    try {
      client->Create(resources::kPods, "default", pod);
    } catch (const ApiError& error) {
      if (!IsAlreadyExists(error)) throw;
    }
  }
  for (auto _ : state)
    benchmark::DoNotOptimize(client->Get(resources::kPods, "default", "bench-pod"));
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    delete client;
    client = nullptr;
  }
}
BENCHMARK(BM_RequestsSandbox)->Threads(1)->Threads(4)->UseRealTime()->MinTime(2.0);

}  // namespace
}  // namespace gpupool::kube::bench

BENCHMARK_MAIN();
