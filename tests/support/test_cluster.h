// The clusters an end-to-end test runs on: the built-in sandbox, and real
// Kubernetes control planes (kube-apiserver, etcd, kube-scheduler and
// kube-controller-manager, started by scripts/control-plane) of each version
// in GPUPOOL_K8S_DIR (default: ../shared/k8s beside the checkout). The real
// servers are the oracle: a test that passes on the sandbox must pass there.
//
// One cluster per backend and test process: the first test that asks starts
// it, and it stops when the process exits (and, for a real control plane,
// when the process dies: scripts/control-plane watches its owner).
#pragma once

#include <httplib.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sandbox_process.h"

namespace gpupool::backends::testing {

using Json = nlohmann::json;
using sandbox::testing::CommandResult;

// Runs a shell command line in the repository and collects its output.
CommandResult RunInRepository(const std::string& command_line);

class TestCluster {
 public:
  virtual ~TestCluster() = default;
  // "sandbox", or the version folder of a real control plane ("v1.30.14").
  virtual const std::string& backend() const = 0;
  // A folder of this cluster's own, for kubeconfigs, caches and logs.
  virtual const std::string& dir() const = 0;
  virtual std::string kubeconfig() const = 0;
  virtual std::string server() const = 0;  // https://127.0.0.1:PORT
  virtual std::string admin_token() const = 0;
  bool real() const { return backend() != "sandbox"; }

  // `kubectl <arguments>` as the cluster's admin, run in the repository.
  CommandResult Kubectl(const std::string& arguments) const;
  // `helm <arguments>` as the admin, with caches in dir().
  CommandResult Helm(const std::string& arguments) const;
  // An HTTPS client authenticated as the admin.
  std::unique_ptr<httplib::Client> Http() const;
};

// The backends this process can test: "sandbox", then each version folder of
// GPUPOOL_K8S_DIR that holds kube-apiserver.xz; "real" stands for them all
// when there is none (its tests skip, saying why).
std::vector<std::string> Backends();
// The folder real control planes are taken from.
std::string KubernetesDir();

// The running cluster of `backend`, started on first use. Throws
// std::runtime_error with the start-up output when it cannot start.
TestCluster& ClusterFor(const std::string& backend);

// The Kubernetes minor version whose answers a backend gives: a real control
// plane's own ("v1.30.14" → 30); the sandbox's is the version its /version
// names, 1.32.
int MinorVersion(const std::string& backend);

// gtest parameter names: "sandbox", "v1_30_14".
std::string BackendTestName(const std::string& backend);

// Skips the test, with one line saying why, when `backend` has no binaries.
#define SKIP_WITHOUT_BACKEND(backend)                                                     \
  if ((backend) == "real")                                                                \
  GTEST_SKIP() << "no Kubernetes control-plane binaries in "                              \
               << ::gpupool::backends::testing::KubernetesDir()                           \
               << " (set GPUPOOL_K8S_DIR to a folder of v*/kube-apiserver.xz); the real " \
                  "control-plane tests did not run"

}  // namespace gpupool::backends::testing
