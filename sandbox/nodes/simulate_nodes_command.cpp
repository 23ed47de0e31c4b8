// `gpupool simulate-nodes`: the sandbox's simulated GPU nodes (kubelets, the
// NVIDIA device plugin, the DCGM exporter) against any Kubernetes API server.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "gpupool/common/flag_arg.h"
#include "gpupool/kube/config.h"
#include "gpupool/sandbox/commands.h"
#include "sandbox/nodes/remote_kubelets.h"

namespace gpupool::cli {
namespace {

constexpr char kUsage[] =
    "usage: gpupool simulate-nodes --nodes SPEC [flags]\n"
    "\n"
    "Registers simulated GPU nodes with a Kubernetes API server and plays their\n"
    "kubelets and NVIDIA device plugin for the pods bound to them: devices named\n"
    "by UUID, Running after a start delay, Succeeded after the seconds a pod's\n"
    "annotation sandbox.gpupool.dev/run-seconds asks for, deletions confirmed\n"
    "after their grace period. Scheduling is the cluster's own (kube-scheduler).\n"
    "Runs until SIGTERM or SIGINT.\n"
    "\n"
    "  --nodes SPEC               COUNTxGPUS[:label=value,...][;...], or a file (as\n"
    "                             `gpupool sandbox --nodes` takes it)\n"
    "  --kubeconfig PATH          the cluster (default: $KUBECONFIG, ~/.kube/config,\n"
    "                             in-cluster)\n"
    "  --context NAME             a kubeconfig context other than the current one\n"
    "  --time-scale X             simulated seconds per real second (default 1)\n"
    "  --start-seconds S          bound -> Running after S simulated seconds (default 2)\n"
    "  --stop-seconds S           a deleted pod stops after S, at most its grace (default 1)\n"
    "  --lease-seconds S          the nodes' Lease duration, renewed every S/4 (default 40)\n"
    "  --dcgm-port PORT           serve the DCGM exporter's /metrics on 127.0.0.1:PORT\n"
    "                             (0: any free port; default: not served)\n"
    "  --dcgm-port-file PATH      write the DCGM exporter's port there once it listens\n"
    "  --delete-nodes-on-exit     delete the nodes and their Leases when stopped\n";

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

struct Flags {
  std::string kubeconfig, context, nodes, dcgm_port_file;
  sandbox::RemoteKubeletsOptions options;
  int dcgm_port = -1;
  bool delete_nodes = false;
};

double Number(const std::string& flag, const std::string& text, double min, double max) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size() && value >= min && value <= max) return value;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument("flag " + flag + ": \"" + text + "\" is not a number from " +
                              std::to_string(static_cast<long long>(min)) + " to " +
                              std::to_string(static_cast<long long>(max)));
}

Flags ParseFlags(Args args) {
  Flags flags;
  constexpr double kYear = 365.0 * 24 * 3600;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const FlagArg arg = SplitFlagArg(args[i]);
    const std::string& flag = arg.name;
    auto value = [&]() -> std::string {
      if (arg.value) return *arg.value;
      if (i + 1 >= args.size()) throw std::invalid_argument("flag " + flag + " needs a value");
      return args[++i];
    };
    if (flag == "--nodes") {
      flags.nodes = value();
    } else if (flag == "--kubeconfig") {
      flags.kubeconfig = value();
    } else if (flag == "--context") {
      flags.context = value();
    } else if (flag == "--time-scale") {
      flags.options.time_scale = Number(flag, value(), 0.001, 100000);
    } else if (flag == "--start-seconds") {
      flags.options.start_seconds = Number(flag, value(), 0, kYear);
    } else if (flag == "--stop-seconds") {
      flags.options.stop_seconds = Number(flag, value(), 0, kYear);
    } else if (flag == "--lease-seconds") {
      flags.options.lease_seconds = static_cast<int>(Number(flag, value(), 4, 3600));
    } else if (flag == "--dcgm-port") {
      flags.dcgm_port = static_cast<int>(Number(flag, value(), 0, 65535));
    } else if (flag == "--dcgm-port-file") {
      flags.dcgm_port_file = value();
    } else if (flag == "--delete-nodes-on-exit") {
      const auto setting = SwitchSetting(arg);
      if (!setting) {
        throw std::invalid_argument("flag " + flag + ": expected true or false, got \"" +
                                    *arg.value + "\"");
      }
      flags.delete_nodes = *setting;
    } else {
      throw std::invalid_argument("unknown flag " + flag);
    }
  }
  if (flags.nodes.empty()) throw std::invalid_argument("flag --nodes is required");
  flags.options.nodes = sandbox::ParseNodes(flags.nodes);
  if (flags.options.nodes.empty()) throw std::invalid_argument("flag --nodes: no nodes");
  return flags;
}

// The DCGM exporter's page, served on loopback until the process stops.
class DcgmServer {
 public:
  DcgmServer(const sandbox::RemoteKubelets& kubelets, int port, const std::string& port_file) {
    server_.Get("/metrics", [&kubelets](const httplib::Request&, httplib::Response& response) {
      response.set_content(kubelets.DcgmPage(), "text/plain; version=0.0.4");
    });
    const int bound = port == 0 ? server_.bind_to_any_port("127.0.0.1")
                                : (server_.bind_to_port("127.0.0.1", port) ? port : -1);
    if (bound < 0) throw std::runtime_error("cannot listen on 127.0.0.1:" + std::to_string(port));
    if (!port_file.empty()) std::ofstream(port_file) << bound << "\n";
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~DcgmServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  httplib::Server server_;
  std::thread thread_;
};

int Simulate(const Flags& flags) {
  // Each kubelet has a client of its own, 50 requests a second (burst 100) by
  // default: one process playing them all may send as many.
  kube::TransportOptions transport;
  transport.qps = 50.0 * static_cast<double>(flags.options.nodes.size());
  transport.burst =
      static_cast<int>(std::min<std::size_t>(100 * flags.options.nodes.size(), 1000000));
  kube::Client client(kube::LoadDefaultConfig(flags.kubeconfig, flags.context), transport);
  sandbox::RemoteKubelets kubelets(client, flags.options);
  kubelets.Register();
  std::unique_ptr<DcgmServer> dcgm;
  if (flags.dcgm_port >= 0) {
    dcgm = std::make_unique<DcgmServer>(kubelets, flags.dcgm_port, flags.dcgm_port_file);
  }
  std::cout << "gpupool simulate-nodes: " << flags.options.nodes.size() << " nodes registered"
            << std::endl;
  while (!g_stop) {
    kubelets.Step();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (flags.delete_nodes) kubelets.Unregister();
  return 0;
}

}  // namespace

int RunSimulateNodes(Args args) {
  if (WantsHelp(args)) {
    std::cout << kUsage;
    return 0;
  }
  Flags flags;
  try {
    flags = ParseFlags(args);
  } catch (const std::invalid_argument& error) {
    std::cerr << "gpupool simulate-nodes: " << error.what() << "\n\n" << kUsage;
    return 2;
  }
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  try {
    return Simulate(flags);
  } catch (const std::exception& error) {
    std::cerr << "gpupool simulate-nodes: " << error.what() << "\n";
    return 1;
  }
}

}  // namespace gpupool::cli
