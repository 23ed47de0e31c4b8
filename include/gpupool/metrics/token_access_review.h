// Who may read the metrics listener, decided as controller-runtime's secure
// metrics decide it: the request's bearer token names a user by a TokenReview,
// and that user may read the path when a SubjectAccessReview for the
// non-resource path and the request's verb (GET: "get") allows it. The reviews
// are asked of the API server on a thread of their own, never the listener's;
// verdicts are kept a while, so a scraper every 15 s costs two reviews a
// minute, and at most a bounded number of distinct tokens wait at once, so
// made-up tokens cannot queue work without end.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gpupool/metrics/bounded_http_server.h"

namespace gpupool::kube {
class Client;
}  // namespace gpupool::kube

namespace gpupool::metrics {

struct ReviewedUser {
  bool authenticated = false;
  std::string username, uid;
  std::vector<std::string> groups;
};

// The two questions, asked of an API server (KubeAccessReviews) or a test's fake.
// Both throw std::exception when they cannot be answered.
class AccessReviews {
 public:
  virtual ~AccessReviews() = default;
  virtual ReviewedUser Authenticate(const std::string& token) = 0;
  virtual bool MayAccess(const ReviewedUser& user, const std::string& verb,
                         const std::string& path) = 0;
  // Ends a question in flight at once (it then throws): the reviewer is stopping.
  virtual void Cancel() {}
};

// TokenReview and SubjectAccessReview through `client`, a client of their own:
// reviews never take the controller's request budget.
std::unique_ptr<AccessReviews> KubeAccessReviews(std::unique_ptr<kube::Client> client);

struct AccessReviewOptions {
  std::chrono::milliseconds allowed_for{std::chrono::minutes(1)};
  std::chrono::milliseconds refused_for{std::chrono::seconds(10)};
  // A review that failed (API server unreachable) answers 503 this long.
  std::chrono::milliseconds failed_for{std::chrono::seconds(1)};
  std::size_t max_kept = 1024;   // Verdicts kept; past it the first to expire goes.
  std::size_t max_waiting = 32;  // Distinct tokens under review at once; past it 503.
};

class TokenAccessReviewer {
 public:
  TokenAccessReviewer(std::unique_ptr<AccessReviews> reviews, AccessReviewOptions options = {});
  ~TokenAccessReviewer();
  TokenAccessReviewer(const TokenAccessReviewer&) = delete;
  TokenAccessReviewer& operator=(const TokenAccessReviewer&) = delete;

  // A RequestGuard: allowed, refused (401 without a valid bearer token, 403
  // when its user may not, 503 when the reviews fail or too many wait), or
  // pending while its reviews run.
  GuardVerdict Check(const RequestHead& request, const std::function<void()>& wake);

 private:
  struct Question {
    std::string key, token, verb, path;
  };
  struct Kept {
    GuardVerdict verdict;
    std::chrono::steady_clock::time_point until;
  };
  void Work();
  GuardVerdict Review(const Question& question, std::chrono::milliseconds& keep_for);
  void Keep(const std::string& key, const GuardVerdict& verdict, std::chrono::milliseconds ttl);

  std::unique_ptr<AccessReviews> reviews_;
  AccessReviewOptions options_;
  std::mutex mutex_;
  std::condition_variable asked_;
  std::map<std::string, Kept> kept_;
  std::deque<Question> queued_;
  std::map<std::string, std::function<void()>> waiting_;  // Queued or under review.
  bool stopping_ = false;
  std::thread worker_;
};

// A RequestGuard that asks `reviewer`, which it keeps alive.
RequestGuard GuardWith(std::shared_ptr<TokenAccessReviewer> reviewer);

}  // namespace gpupool::metrics
