// `gpupool sandbox`: an in-memory Kubernetes API server with simulated GPU
// nodes, scheduler and kubelet. The one entry point the CLI uses.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sandbox/store/store.h"

namespace gpupool::sandbox {

struct FaultOptions {
  uint64_t seed = 1;
  std::map<std::string, double> error_rates;  // verb ("get", "list", "*", ...) -> probability
  std::vector<int> error_codes = {500, 503, 429};
  int retry_after_seconds = 1;
  std::map<std::string, int> latency_ms;  // verb -> added latency
  double watch_cut_seconds = 0;           // end every watch after this long
  double compact_seconds = 0;             // drop the watch history this often
  double drop_rate = 0;                   // probability of closing a connection mid-response
};

struct Options {
  int port = 0;  // 0: any free port
  bool plain_http = false;
  std::string kubeconfig_out;
  std::string port_file;
  std::string token;  // generated when empty
  std::string nodes;  // a node spec or a file (see docs/sandbox.md)
  double time_scale = 1.0;
  size_t history_window = kDefaultHistoryWindow;
  double bookmark_seconds = 10;
  double start_seconds = 2;  // simulated time from binding to Running
  int threads = 64;
  // Service-account tokens from the TokenRequest API, checked against RBAC.
  bool authorize_service_accounts = false;
  FaultOptions faults;
};

// Parses the command-line flags; throws std::invalid_argument naming the flag.
Options ParseOptions(const std::vector<std::string>& args);
std::string UsageText();

// Serves until SIGINT or SIGTERM; returns the process exit code.
int Run(const Options& options);

}  // namespace gpupool::sandbox
