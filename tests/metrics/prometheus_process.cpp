#include "prometheus_process.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gpupool::metrics::testing {

bool PrometheusInstalled() { return std::system("command -v prometheus >/dev/null 2>&1") == 0; }

PrometheusProcess::PrometheusProcess(const std::string& target, const std::string& bearer_token) {
  char pattern[] = "/tmp/gpupool-prometheus-test-XXXXXX";
  if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  std::ofstream config(dir_ + "/prometheus.yml");
  config << "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
            "scrape_configs:\n"
            "  - job_name: gpupool\n"
            "    static_configs: [{targets: ['"
         << target << "']}]\n";
  if (!bearer_token.empty()) {
    std::ofstream(dir_ + "/token") << bearer_token;
    config << "    scheme: https\n"
              "    tls_config: {insecure_skip_verify: true}\n"
              "    authorization: {credentials_file: "
           << dir_ << "/token}\n";
  }
  config.close();
  port_ = FreeLoopbackPort();
  std::vector<std::string> args = {"prometheus", "--config.file=" + dir_ + "/prometheus.yml",
                                   "--storage.tsdb.path=" + dir_ + "/data",
                                   "--web.listen-address=127.0.0.1:" + std::to_string(port_)};
  const std::string log = dir_ + "/prometheus.log";
  pid_ = fork();
  if (pid_ == 0) {
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    if (freopen(log.c_str(), "w", stdout) && freopen(log.c_str(), "a", stderr))
      execvp(argv[0], argv.data());
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!Ready()) {
    const bool exited = waitpid(pid_, nullptr, WNOHANG) == pid_;
    if (exited) pid_ = -1;
    if (exited || std::chrono::steady_clock::now() > deadline) {
      const std::string log = Log();
      Stop();
      throw std::runtime_error("prometheus did not start:\n" + log);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

PrometheusProcess::~PrometheusProcess() { Stop(); }

void PrometheusProcess::Stop() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    bool reaped = false;
    for (int i = 0; i < 100 && !reaped; ++i) {
      reaped = waitpid(pid_, nullptr, WNOHANG) == pid_;
      if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!reaped) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

bool PrometheusProcess::Ready() const {
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(1);
  auto response = client.Get("/-/ready");
  return response && response->status == 200;
}

nlohmann::json PrometheusProcess::Query(const std::string& promql) const {
  httplib::Client client("127.0.0.1", port_);
  client.set_read_timeout(10);
  const httplib::Params params = {{"query", promql}};
  auto response = client.Get("/api/v1/query", params, httplib::Headers{});
  if (!response || response->status != 200)
    throw std::runtime_error("query " + promql + " failed: " +
                             (response ? response->body : httplib::to_string(response.error())));
  return nlohmann::json::parse(response->body)["data"]["result"];
}

std::optional<double> PrometheusProcess::Value(const std::string& promql) const {
  const nlohmann::json result = Query(promql);
  if (result.empty()) return std::nullopt;
  double sum = 0;
  for (const auto& sample : result) sum += std::stod(sample["value"][1].get<std::string>());
  return sum;
}

std::string PrometheusProcess::Log() const {
  std::ifstream in(dir_ + "/prometheus.log");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace gpupool::metrics::testing
