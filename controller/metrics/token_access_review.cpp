#include "gpupool/metrics/token_access_review.h"

#include <openssl/evp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>

#include "http_request.h"

namespace gpupool::metrics {
namespace {

using Clock = std::chrono::steady_clock;

GuardVerdict Refused(int status, std::string body) {
  return {GuardVerdict::Kind::kRefused, {status, "text/plain", std::move(body)}};
}

// The token of "Bearer <token>" (the scheme in any case); "" otherwise.
std::string BearerToken(const std::string& authorization) {
  constexpr std::size_t kScheme = 7;  // "Bearer "
  if (authorization.size() <= kScheme || authorization[kScheme - 1] != ' ') return "";
  if (internal::Lowercase(authorization.substr(0, kScheme - 1)) != "bearer") return "";
  const auto start = authorization.find_first_not_of(' ', kScheme);
  return start == std::string::npos ? "" : authorization.substr(start);
}

// Verdicts are kept under a digest of the token, never the token itself.
std::string Digest(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

}  // namespace

TokenAccessReviewer::TokenAccessReviewer(std::unique_ptr<AccessReviews> reviews,
                                         AccessReviewOptions options)
    : reviews_(std::move(reviews)), options_(options), worker_([this] { Work(); }) {}

TokenAccessReviewer::~TokenAccessReviewer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  asked_.notify_all();
  reviews_->Cancel();
  worker_.join();
}

GuardVerdict TokenAccessReviewer::Check(const RequestHead& request,
                                        const std::function<void()>& wake) {
  const std::string token = BearerToken(request.authorization);
  if (token.empty())
    return Refused(401,
                   "Unauthorized: send a ServiceAccount token as \"Authorization: Bearer "
                   "<token>\"\n");
  // HTTP's verb as the API server names a non-resource request's: GET is "get".
  const std::string verb = internal::Lowercase(request.method);
  const std::string key = Digest(token) + " " + verb + " " + request.path;
  std::lock_guard lock(mutex_);
  if (const auto kept = kept_.find(key); kept != kept_.end()) {
    if (kept->second.until > Clock::now()) return kept->second.verdict;
    kept_.erase(kept);
  }
  if (const auto waiting = waiting_.find(key); waiting != waiting_.end()) {
    waiting->second = wake;
    return {GuardVerdict::Kind::kPending};
  }
  if (waiting_.size() >= options_.max_waiting)
    return Refused(503, "too many tokens under review; try again\n");
  waiting_[key] = wake;
  queued_.push_back({key, token, verb, request.path});
  asked_.notify_one();
  return {GuardVerdict::Kind::kPending};
}

void TokenAccessReviewer::Work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    asked_.wait(lock, [this] { return stopping_ || !queued_.empty(); });
    if (stopping_) return;
    const Question question = std::move(queued_.front());
    queued_.pop_front();
    lock.unlock();
    std::chrono::milliseconds keep_for{0};
    const GuardVerdict verdict = Review(question, keep_for);
    lock.lock();
    Keep(question.key, verdict, keep_for);
    const auto waiting = waiting_.find(question.key);
    const std::function<void()> wake = std::move(waiting->second);
    waiting_.erase(waiting);
    if (wake) wake();
  }
}

GuardVerdict TokenAccessReviewer::Review(const Question& question,
                                         std::chrono::milliseconds& keep_for) {
  try {
    const ReviewedUser user = reviews_->Authenticate(question.token);
    keep_for = options_.refused_for;
    if (!user.authenticated) return Refused(401, "Unauthorized: the token is not valid\n");
    if (!reviews_->MayAccess(user, question.verb, question.path))
      return Refused(403, "forbidden: User \"" + user.username + "\" cannot " + question.verb +
                              " path \"" + question.path + "\"\n");
    keep_for = options_.allowed_for;
    return {GuardVerdict::Kind::kAllowed};
  } catch (const std::exception& error) {
    // The cause names the API server: it goes to the log, not to the client.
    spdlog::warn(
        "reviewing a /metrics token failed (the ServiceAccount needs create on "
        "tokenreviews and subjectaccessreviews): {}",
        error.what());
    keep_for = options_.failed_for;
    return Refused(503, "cannot review the token now\n");
  }
}

void TokenAccessReviewer::Keep(const std::string& key, const GuardVerdict& verdict,
                               std::chrono::milliseconds ttl) {
  const auto now = Clock::now();
  std::erase_if(kept_, [now](const auto& entry) { return entry.second.until <= now; });
  if (kept_.size() >= options_.max_kept && !kept_.empty())
    kept_.erase(std::min_element(kept_.begin(), kept_.end(), [](const auto& a, const auto& b) {
      return a.second.until < b.second.until;
    }));
  kept_[key] = {verdict, now + ttl};
}

RequestGuard GuardWith(std::shared_ptr<TokenAccessReviewer> reviewer) {
  return [reviewer = std::move(reviewer)](const RequestHead& request,
                                          const std::function<void()>& wake) {
    return reviewer->Check(request, wake);
  };
}

}  // namespace gpupool::metrics
