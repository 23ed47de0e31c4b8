#include "sandbox/sandbox.h"

#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <iostream>
#include <random>
#include <thread>

#include "gpupool/tls/certificates.h"
#include "sandbox/http/http_server.h"
#include "sandbox/nodes/nodes.h"
#include "sandbox/nodes/simulator.h"
#include "sandbox/store/encoding.h"

namespace gpupool::sandbox {
namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop = true; }

std::string RandomToken() {
  std::random_device device;
  std::string token;
  const char* hex = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) token += hex[device() % 16];
  return token;
}

void WriteKubeconfig(const std::string& path, const std::string& server, const std::string& ca_pem,
                     const std::string& token) {
  std::ofstream out(path);
  out << "apiVersion: v1\nkind: Config\nclusters:\n- name: gpupool-sandbox\n  cluster:\n"
      << "    server: " << server << "\n";
  if (!ca_pem.empty()) out << "    certificate-authority-data: " << Base64Encode(ca_pem) << "\n";
  out << "contexts:\n- name: gpupool-sandbox\n  context:\n    cluster: gpupool-sandbox\n"
      << "    user: gpupool-sandbox\n    namespace: default\n"
      << "current-context: gpupool-sandbox\nusers:\n- name: gpupool-sandbox\n  user:\n"
      << "    token: " << token << "\n";
  if (!out) throw std::runtime_error("cannot write kubeconfig " + path);
}

void CreateInitialObjects(Cluster& cluster, const Options& options) {
  WriteOptions write;
  write.field_manager = "kube-apiserver";
  const auto namespaces = cluster.Resource("", "v1", "namespaces");
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    cluster.Create(*namespaces, "", Json{{"metadata", {{"name", name}}}}, write);
  }
  if (options.nodes.empty()) return;
  write.field_manager = "kubelet";
  const auto nodes = cluster.Resource("", "v1", "nodes");
  for (const auto& spec : ParseNodes(options.nodes)) {
    cluster.Create(*nodes, "", NodeObject(spec), write);
  }
}

// Forced compaction for the fault flag: every watch behind gets 410 Gone.
void CompactLoop(Cluster& cluster, double seconds) {
  auto next = std::chrono::steady_clock::now();
  while (!g_stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (std::chrono::steady_clock::now() < next) continue;
    next = std::chrono::steady_clock::now() +
           std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
    auto lock = cluster.store().Lock();
    cluster.store().Compact();
  }
}

// Every connection holds a descriptor; the usual soft limit of 1,024 would
// refuse clients long before the server is busy.
void RaiseDescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace

int Run(const Options& options) {
  RaiseDescriptorLimit();
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  Cluster cluster(ClusterConfig{options.history_window});
  CreateInitialObjects(cluster, options);
  tls::TlsMaterial certificates;
  if (!options.plain_http) tls::GenerateTls({"gpupool-sandbox"}, certificates);
  const std::string token = options.token.empty() ? RandomToken() : options.token;
  HttpServer server(cluster, options, options.plain_http ? nullptr : &certificates, token);
  const int port = server.Bind();
  const std::string url =
      std::string(options.plain_http ? "http" : "https") + "://127.0.0.1:" + std::to_string(port);
  if (!options.kubeconfig_out.empty())
    WriteKubeconfig(options.kubeconfig_out, url, certificates.ca_pem, token);
  if (!options.port_file.empty()) std::ofstream(options.port_file) << port << "\n";
  std::cout << "gpupool sandbox serving on " << url << std::endl;
  Simulator simulator(cluster, SimulatorConfig{options.time_scale, options.start_seconds, 1.0});
  simulator.Start();
  std::thread serving([&] { server.Serve(); });
  std::thread compacting;
  if (options.faults.compact_seconds > 0) {
    compacting = std::thread([&] { CompactLoop(cluster, options.faults.compact_seconds); });
  }
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  server.Stop();
  serving.join();
  if (compacting.joinable()) compacting.join();
  simulator.Stop();
  return 0;
}

}  // namespace gpupool::sandbox
