// Scrapes the DCGM exporter on a thread of its own and keeps the last reading,
// so a slow or broken exporter never delays a scheduling cycle: the cycle takes
// whatever Latest() holds.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "gpupool/utilization/readings.h"

namespace gpupool::utilization {

struct ScrapeOptions {
  std::string url;  // http(s)://HOST:PORT/metrics of the exporter (or a federating Prometheus).
  std::chrono::milliseconds interval{15000};
  std::chrono::milliseconds timeout{5000};  // Of one whole request, connect included.
  std::size_t max_body_bytes = 16 << 20;    // A larger page is refused, not read.
  std::string ca_file;  // PEM bundle that https URLs are checked against; "": the system's.
};

// One GET and parse. Never throws: a failure is an unavailable reading that says why.
Readings ScrapeOnce(const ScrapeOptions& options, std::int64_t now);

class Scraper {
 public:
  explicit Scraper(ScrapeOptions options);
  ~Scraper();
  Scraper(const Scraper&) = delete;
  Scraper& operator=(const Scraper&) = delete;

  // Scrapes until Stop(); `on_update` runs on the scraper's thread after every scrape.
  void Start(std::function<void()> on_update = {});
  void Stop();
  // The last scrape's readings; before the first, unavailable.
  SharedReadings Latest() const;

 private:
  void Loop();
  void Publish(Readings readings);

  ScrapeOptions options_;
  std::function<void()> on_update_;
  mutable std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  SharedReadings latest_;
  std::thread thread_;
};

}  // namespace gpupool::utilization
