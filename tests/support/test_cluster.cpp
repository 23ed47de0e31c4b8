#include "test_cluster.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

namespace gpupool::backends::testing {
namespace {

namespace fs = std::filesystem;

const std::string kSourceDir = GPUPOOL_SOURCE_DIR;

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

class SandboxCluster : public TestCluster {
 public:
  const std::string& backend() const override { return name_; }
  const std::string& dir() const override { return process_.dir(); }
  std::string kubeconfig() const override { return process_.kubeconfig(); }
  std::string server() const override {
    return "https://127.0.0.1:" + std::to_string(process_.port());
  }
  std::string admin_token() const override { return process_.token(); }

 private:
  std::string name_ = "sandbox";
  // RBAC on service accounts, as on the real control planes; the admin token
  // every test uses by default is not checked.
  sandbox::testing::SandboxProcess process_{{"--authorize-service-accounts"}};
};

// A real control plane from scripts/control-plane, stopped with the process.
class RealControlPlane : public TestCluster {
 public:
  explicit RealControlPlane(const std::string& version) : version_(version) {
    char pattern[] = "/tmp/gpupool-control-plane-XXXXXX";
    if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    const CommandResult started =
        RunInRepository("GPUPOOL_K8S_DIR=" + KubernetesDir() + " scripts/control-plane start " +
                        dir_ + " " + version + " " + std::to_string(getpid()));
    if (started.exit_code != 0) {
      Stop();
      throw std::runtime_error("the " + version +
                               " control plane did not start: " + started.output);
    }
    port_ = ReadFile(dir_ + "/port");
    while (!port_.empty() && std::isspace(static_cast<unsigned char>(port_.back())))
      port_.pop_back();
  }
  ~RealControlPlane() override { Stop(); }

  const std::string& backend() const override { return version_; }
  const std::string& dir() const override { return dir_; }
  std::string kubeconfig() const override { return dir_ + "/kubeconfig"; }
  std::string server() const override { return "https://127.0.0.1:" + port_; }
  std::string admin_token() const override { return "gpupool-admin-token"; }

 private:
  void Stop() {
    RunInRepository("scripts/control-plane stop " + dir_);
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::string version_, dir_, port_;
};

}  // namespace

CommandResult RunInRepository(const std::string& command_line) {
  return sandbox::testing::RunCommand("cd " + kSourceDir + " && " + command_line);
}

CommandResult TestCluster::Kubectl(const std::string& arguments) const {
  return RunInRepository("KUBECONFIG=" + kubeconfig() + " KUBECACHEDIR=" + dir() +
                         "/kubectl-cache timeout 120 kubectl " + arguments);
}

CommandResult TestCluster::Helm(const std::string& arguments) const {
  const std::string home = dir() + "/helm";
  return RunInRepository("KUBECONFIG=" + kubeconfig() + " HELM_DRIVER=configmap HELM_CACHE_HOME=" +
                         home + "/cache HELM_CONFIG_HOME=" + home +
                         "/config HELM_DATA_HOME=" + home + "/data timeout 180 helm " + arguments);
}

int MinorVersion(const std::string& backend) {
  if (backend == "sandbox") return 32;
  const auto dot = backend.find('.');
  return dot == std::string::npos ? 0 : std::atoi(backend.c_str() + dot + 1);
}

std::unique_ptr<httplib::Client> TestCluster::Http() const {
  // A server that drops a connection mid-request must fail the request, not
  // end the test process with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  auto client = std::make_unique<httplib::Client>(server());
  client->enable_server_certificate_verification(false);
  client->set_read_timeout(30, 0);
  client->set_bearer_token_auth(admin_token().c_str());
  return client;
}

std::string KubernetesDir() {
  const char* set = std::getenv("GPUPOOL_K8S_DIR");
  if (set && *set) return set;
  return (fs::path(kSourceDir).parent_path() / "shared" / "k8s").string();
}

std::vector<std::string> Backends() {
  std::vector<std::string> backends = {"sandbox"};
  std::vector<std::string> versions;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(KubernetesDir(), error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind('v', 0) == 0 && fs::exists(entry.path() / "kube-apiserver.xz"))
      versions.push_back(name);
  }
  std::sort(versions.begin(), versions.end());
  if (versions.empty()) versions.push_back("real");
  backends.insert(backends.end(), versions.begin(), versions.end());
  return backends;
}

TestCluster& ClusterFor(const std::string& backend) {
  static std::map<std::string, std::unique_ptr<TestCluster>> clusters;
  auto& cluster = clusters[backend];
  if (!cluster) {
    if (backend == "sandbox") {
      cluster = std::make_unique<SandboxCluster>();
    } else {
      // On a loaded machine (CI runs two suites at once) a start can overrun
      // its deadline; a failed start stops what it started: try once more.
      try {
        cluster = std::make_unique<RealControlPlane>(backend);
      } catch (const std::runtime_error& first) {
        std::fprintf(stderr, "%s; starting it again\n", first.what());
        cluster = std::make_unique<RealControlPlane>(backend);
      }
    }
  }
  return *cluster;
}

std::string BackendTestName(const std::string& backend) {
  std::string name = backend;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

}  // namespace gpupool::backends::testing
