// The scraper against a real HTTP server on loopback: a good page, an error
// status, a page past the size bound, a server slower than the timeout and a
// port nobody listens on. Each failure is an unavailable reading that says why.
#include "gpupool/utilization/scraper.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <thread>

namespace gpupool::utilization {
namespace {

constexpr char kPage[] =
    "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"n\",pod=\"p\",namespace=\"ns\"} 42\n";

class Exporter {
 public:
  Exporter() {
    server_.Get("/metrics", [](const httplib::Request&, httplib::Response& response) {
      response.set_content(kPage, "text/plain");
    });
    server_.Get("/missing", [](const httplib::Request&, httplib::Response& response) {
      response.status = 404;
    });
    server_.Get("/huge", [](const httplib::Request&, httplib::Response& response) {
      response.set_content(std::string(2 << 20, '#'), "text/plain");
    });
    server_.Get("/slow", [](const httplib::Request&, httplib::Response& response) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      response.set_content(kPage, "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~Exporter() {
    server_.stop();
    thread_.join();
  }
  ScrapeOptions Options(const std::string& path) const {
    ScrapeOptions options;
    options.url = "http://127.0.0.1:" + std::to_string(port_) + path;
    options.timeout = std::chrono::milliseconds(500);
    options.max_body_bytes = 1 << 20;
    options.interval = std::chrono::milliseconds(50);
    return options;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

TEST(Scraper, ReadsThePage) {
  Exporter exporter;
  const Readings readings = ScrapeOnce(exporter.Options("/metrics"), 7);
  ASSERT_TRUE(readings.available) << readings.problem;
  ASSERT_EQ(readings.gpus.size(), 1u);
  EXPECT_DOUBLE_EQ(readings.gpus[0].percent, 42);
  EXPECT_EQ(readings.read_at, 7);
}

TEST(Scraper, AnErrorStatusIsAProblem) {
  Exporter exporter;
  const Readings readings = ScrapeOnce(exporter.Options("/missing"), 0);
  EXPECT_FALSE(readings.available);
  EXPECT_NE(readings.problem.find("HTTP status 404"), std::string::npos) << readings.problem;
}

TEST(Scraper, APageOverTheBoundIsRefused) {
  Exporter exporter;
  const Readings readings = ScrapeOnce(exporter.Options("/huge"), 0);
  EXPECT_FALSE(readings.available);
  EXPECT_NE(readings.problem.find("larger than 1048576 bytes"), std::string::npos)
      << readings.problem;
}

TEST(Scraper, ASlowExporterTimesOut) {
  Exporter exporter;
  const auto start = std::chrono::steady_clock::now();
  const Readings readings = ScrapeOnce(exporter.Options("/slow"), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1400));
  EXPECT_FALSE(readings.available);
  EXPECT_NE(readings.problem.find("within 500 ms"), std::string::npos) << readings.problem;
}

TEST(Scraper, NobodyListeningIsAProblem) {
  ScrapeOptions options;
  options.url = "http://127.0.0.1:1/metrics";
  const Readings readings = ScrapeOnce(options, 0);
  EXPECT_FALSE(readings.available);
  EXPECT_NE(readings.problem.find("GET http://127.0.0.1:1/metrics: "), std::string::npos)
      << readings.problem;
}

TEST(Scraper, KeepsTheLastReadingAndReportsEveryScrape) {
  Exporter exporter;
  Scraper scraper(exporter.Options("/metrics"));
  EXPECT_FALSE(scraper.Latest()->available);
  EXPECT_NE(scraper.Latest()->problem.find("not been scraped yet"), std::string::npos);
  std::atomic<int> updates{0};
  scraper.Start([&] { ++updates; });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (updates < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  scraper.Stop();
  EXPECT_GE(updates.load(), 3);
  EXPECT_TRUE(scraper.Latest()->available);
}

}  // namespace
}  // namespace gpupool::utilization
