// Many open watches do not stall other clients, idle kept-alive connections
// cost nothing, and a sandbox whose setup fails is never left running.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "fidelity_util.h"

namespace gpupool::sandbox::testing {
namespace {

// An open watch that nobody reads: a raw socket with the request sent.
int OpenWatch(int port, const std::string& token) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    close(fd);
    return -1;
  }
  const std::string request =
      "GET /api/v1/namespaces/default/configmaps?watch=true HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Authorization: Bearer " +
      token + "\r\n\r\n";
  if (send(fd, request.data(), request.size(), 0) != static_cast<ssize_t>(request.size())) {
    close(fd);
    return -1;
  }
  return fd;
}

void RaiseDescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// Times any thread of process `pid` gave up the CPU while waiting.
long WaitsOf(pid_t pid) {
  long total = 0;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(tasks)) {
    std::ifstream status(task.path() / "status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) total += std::stol(line.substr(24));
    }
  }
  return total;
}

TEST(ConnectionsTest, IdleKeptAliveConnectionsDoNotWakeTheServer) {
  SandboxProcess sandbox({"--nodes", "2x8"});
  constexpr int kConnections = 8;
  std::vector<std::unique_ptr<httplib::Client>> clients;
  for (int i = 0; i < kConnections; ++i) {
    clients.push_back(sandbox.Http());
    clients.back()->set_keep_alive(true);
    ASSERT_EQ(Send(*clients.back(), "GET", "/api/v1/nodes").status, 200);
  }
  const long before = WaitsOf(sandbox.pid());
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const long waits = WaitsOf(sandbox.pid()) - before;
  // Polling every 10 ms with 1-ms sleeps between, as the packaged httplib does,
  // 8 idle connections woke their workers about 3,000 times in these 2 s; with
  // one poll each, the whole sandbox waited about 120 times (its simulator's rounds).
  EXPECT_LT(waits, 800) << kConnections << " idle connections, 2 s";
  for (auto& client : clients) {  // still open, and served at once
    EXPECT_EQ(Send(*client, "GET", "/api/v1/nodes").status, 200);
  }
}

TEST(ConnectionsTest, AThousandWatchesDoNotStallOtherClients) {
  RaiseDescriptorLimit();
  SandboxProcess sandbox({"--plain-http", "--nodes", "8x8"});
  std::vector<int> watches;
  for (int i = 0; i < 1000; ++i) {
    const int fd = OpenWatch(sandbox.port(), sandbox.token());
    ASSERT_GE(fd, 0) << "watch " << i << " could not connect";
    watches.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // all of them served
  auto client = sandbox.Http();
  double slowest = 0;
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const Reply reply = Send(*client, "GET", "/api/v1/nodes");
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(reply.status, 200);
    EXPECT_EQ(reply.json["items"].size(), 8u);
    slowest = std::max(slowest, ms);
  }
  // Stalled, a list took 15-25 s; the latency itself (target < 200 ms) is measured by
  // `sandbox_bench watches 1000` (bench/sandbox/README.md), not by this test.
  EXPECT_LT(slowest, 5000) << "GET /api/v1/nodes beside 1,000 watches";
  // A change reaches the watches while they are open.
  EXPECT_EQ(
      Send(*client, "POST", "/api/v1/namespaces/default/configmaps", ConfigMapJson("seen-by-all"))
          .status,
      201);
  for (int fd : watches) close(fd);
}

TEST(ConnectionsTest, ASandboxThatDoesNotStartIsStopped) {
  // The last --port-file wins: the sandbox runs but the helper never learns
  // its port, so setup fails after the process started.
  const std::string marker = "/nonexistent-gpupool-dir-" + std::to_string(getpid()) + "/port";
  try {
    SandboxProcess sandbox({"--plain-http", "--port-file", marker});
    ADD_FAILURE() << "the helper did not notice the missing port file";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr("did not start"));
  }
  // "[/]..." matches the sandbox's command line but not pgrep's own shell.
  const auto left = RunCommand("pgrep -f '[/]" + marker.substr(1) + "'");
  EXPECT_NE(left.exit_code, 0) << "still running: " << left.output;
}

}  // namespace
}  // namespace gpupool::sandbox::testing
