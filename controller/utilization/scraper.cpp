#include "gpupool/utilization/scraper.h"

#include <curl/curl.h>
#include <spdlog/spdlog.h>

#include <memory>

#include "prometheus_text.h"

namespace gpupool::utilization {
namespace {

struct Body {
  std::string text;
  std::size_t limit = 0;
  bool too_large = false;
};

std::size_t Collect(char* data, std::size_t size, std::size_t count, void* user) {
  auto* body = static_cast<Body*>(user);
  const std::size_t bytes = size * count;
  if (body->text.size() + bytes > body->limit) {
    body->too_large = true;
    return 0;  // Aborts the transfer.
  }
  body->text.append(data, bytes);
  return bytes;
}

struct CurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};

// The page's text, or "" with `problem` set.
std::string Fetch(const ScrapeOptions& options, std::string& problem) {
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) {
    problem = "cannot start an HTTP request";
    return "";
  }
  Body body;
  body.limit = options.max_body_bytes;
  CURL* handle = curl.get();
  curl_easy_setopt(handle, CURLOPT_URL, options.url.c_str());
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout.count()));
  curl_easy_setopt(handle, CURLOPT_MAXFILESIZE_LARGE,
                   static_cast<curl_off_t>(options.max_body_bytes));
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, Collect);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(handle, CURLOPT_USERAGENT, "gpupool-controller");
  if (!options.ca_file.empty()) curl_easy_setopt(handle, CURLOPT_CAINFO, options.ca_file.c_str());
  const CURLcode code = curl_easy_perform(handle);
  long status = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  const std::string where = "GET " + options.url + ": ";
  if (body.too_large || code == CURLE_FILESIZE_EXCEEDED) {
    problem =
        where + "the page is larger than " + std::to_string(options.max_body_bytes) + " bytes";
  } else if (code == CURLE_OPERATION_TIMEDOUT) {
    problem =
        where + "no complete answer within " + std::to_string(options.timeout.count()) + " ms";
  } else if (code != CURLE_OK) {
    problem = where + curl_easy_strerror(code);
  } else if (status != 200) {
    problem = where + "HTTP status " + std::to_string(status);
  } else {
    return std::move(body.text);
  }
  return "";
}

}  // namespace

Readings ScrapeOnce(const ScrapeOptions& options, std::int64_t now) {
  std::string problem;
  const std::string text = Fetch(options, problem);
  if (!problem.empty()) {
    Readings readings;
    readings.read_at = now;
    readings.problem = problem;
    return readings;
  }
  Readings readings = ReadingsFromText(text, now);
  if (!readings.available) readings.problem = "GET " + options.url + ": " + readings.problem;
  return readings;
}

Scraper::Scraper(ScrapeOptions options) : options_(std::move(options)) {
  auto first = std::make_shared<Readings>();
  first->problem = "the DCGM exporter has not been scraped yet";
  latest_ = std::move(first);
}

Scraper::~Scraper() { Stop(); }

void Scraper::Start(std::function<void()> on_update) {
  on_update_ = std::move(on_update);
  thread_ = std::thread([this] { Loop(); });
}

void Scraper::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  if (thread_.joinable()) thread_.join();
}

SharedReadings Scraper::Latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

void Scraper::Publish(Readings readings) {
  const SharedReadings before = Latest();
  if (!readings.available && readings.problem != before->problem) {
    spdlog::warn("gpu utilization unavailable: {}; idle policies leave every job alone",
                 readings.problem);
  } else if (readings.available && !before->available) {
    spdlog::info("gpu utilization: {} readings from {}", readings.gpus.size(), options_.url);
  }
  if (readings.malformed_lines > 0 && before->malformed_lines == 0)
    spdlog::warn("gpu utilization: skipped {} malformed lines of {} ({})", readings.malformed_lines,
                 options_.url, readings.first_problem);
  std::lock_guard lock(mutex_);
  latest_ = std::make_shared<const Readings>(std::move(readings));
}

void Scraper::Loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    Publish(ScrapeOnce(options_, now));
    if (on_update_) on_update_();
    lock.lock();
    stop_signal_.wait_for(lock, options_.interval, [this] { return stopping_; });
  }
}

}  // namespace gpupool::utilization
