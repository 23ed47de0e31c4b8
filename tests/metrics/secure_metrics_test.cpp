// Secure metrics on the listener itself: HTTPS verified against the CA the
// server generated or the files it was given (read again when they rotate),
// and the token guard's answers (401, 403, 503, 200) with reviews that a fake
// answers, holds or fails. The same guard against real API servers is
// tests/operator/rbac_story_test.cpp and tests/install/controller_rbac_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <openssl/pem.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "gpupool/metrics/http_endpoint.h"
#include "gpupool/metrics/token_access_review.h"
#include "gpupool/tls/server_context.h"
#include "loopback_client.h"

namespace gpupool::metrics {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;
using ::testing::Not;

using testing::kLoopbackAnyPort;
constexpr char kReaderToken[] = "reader-token";
constexpr char kNosyToken[] = "nosy-token";

// Tokens of two users, of whom only "reader" may get /metrics. A question can
// be held until Release, or made to fail.
class FakeReviews : public AccessReviews {
 public:
  struct Shared {
    std::mutex mutex;
    std::condition_variable released;
    bool hold = false;
    bool fail = false;
    std::atomic<int> authentications{0};
  };
  explicit FakeReviews(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}

  ReviewedUser Authenticate(const std::string& token) override {
    ++shared_->authentications;
    std::unique_lock lock(shared_->mutex);
    shared_->released.wait(lock, [&] { return !shared_->hold; });
    if (shared_->fail)
      throw std::runtime_error("POST https://10.96.0.1:443/apis/authentication.k8s.io: refused");
    if (token == kReaderToken) return {true, "system:serviceaccount:monitoring:reader", "", {}};
    if (token == kNosyToken) return {true, "system:serviceaccount:default:nosy", "", {}};
    return {};
  }
  bool MayAccess(const ReviewedUser& user, const std::string& verb,
                 const std::string& path) override {
    return user.username == "system:serviceaccount:monitoring:reader" && verb == "get" &&
           path == "/metrics";
  }

 private:
  std::shared_ptr<Shared> shared_;
};

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("gpupool-secure-metrics-" + std::to_string(getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path;
}

struct Answer {
  int status = 0;  // 0: no HTTP answer (the connection or TLS failed).
  std::string body;
};

// An HTTPS GET that trusts only `ca_file`.
Answer HttpsGet(int port, const std::string& ca_file, const std::string& authorization = "",
                const std::string& path = "/metrics") {
  httplib::SSLClient client("127.0.0.1", port);
  client.set_ca_cert_path(ca_file.c_str());
  client.enable_server_certificate_verification(true);
  client.set_connection_timeout(3);
  client.set_read_timeout(3);
  httplib::Headers headers;
  if (!authorization.empty()) headers.emplace("Authorization", authorization);
  const auto result = client.Get(path.c_str(), headers);
  if (!result) return {};
  return {result->status, result->body};
}

class SecureMetrics : public ::testing::Test {
 protected:
  void Serve(ServerLimits limits = MetricsLimits(), AccessReviewOptions options = {}) {
    auto context = tls::ServerContext::SelfSigned({"gpupool-test"});
    ca_file_ = WriteTemp("ca.pem", context->ca_pem());
    ServerSecurity security;
    security.tls = std::move(context);
    security.guard = GuardWith(
        std::make_shared<TokenAccessReviewer>(std::make_unique<FakeReviews>(reviews_), options));
    server_ = ServeMetrics(
        kLoopbackAnyPort, [] { return std::string("gpupool_up 1\n"); }, limits,
        std::move(security));
  }
  void TearDown() override {
    Release();
    server_.reset();
    if (!ca_file_.empty()) std::filesystem::remove(ca_file_);
  }
  void Hold() {
    std::lock_guard lock(reviews_->mutex);
    reviews_->hold = true;
  }
  void Release() {
    {
      std::lock_guard lock(reviews_->mutex);
      reviews_->hold = false;
    }
    reviews_->released.notify_all();
  }
  Answer Get(const std::string& authorization = "") {
    return HttpsGet(server_->port(), ca_file_, authorization);
  }

  std::shared_ptr<FakeReviews::Shared> reviews_ = std::make_shared<FakeReviews::Shared>();
  std::unique_ptr<BoundedHttpServer> server_;
  std::string ca_file_;
};

TEST_F(SecureMetrics, ATokenWhoseUserMayGetMetricsReadsThemOverVerifiedHttps) {
  Serve();
  const Answer answer = Get(std::string("Bearer ") + kReaderToken);
  EXPECT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(answer.body, "gpupool_up 1\n");
}

TEST_F(SecureMetrics, WithoutABearerTokenTheAnswerIs401AndNothingIsReviewed) {
  Serve();
  for (const std::string authorization : {"", "Basic dXNlcjpwYXNz", "Bearer", "Bearer    "}) {
    const Answer answer = Get(authorization);
    EXPECT_EQ(answer.status, 401) << "Authorization: " << authorization;
    EXPECT_THAT(answer.body, HasSubstr("Authorization: Bearer"));
  }
  EXPECT_EQ(reviews_->authentications, 0);
}

TEST_F(SecureMetrics, ATokenTheServerDoesNotKnowIs401) {
  Serve();
  const Answer answer = Get("Bearer made-up");
  EXPECT_EQ(answer.status, 401);
  EXPECT_THAT(answer.body, HasSubstr("not valid"));
}

TEST_F(SecureMetrics, AUserWithoutTheRightIs403AndTheAnswerNamesWhoAndWhat) {
  Serve();
  const Answer answer = Get(std::string("bearer ") + kNosyToken);  // The scheme in any case.
  EXPECT_EQ(answer.status, 403);
  EXPECT_EQ(answer.body,
            "forbidden: User \"system:serviceaccount:default:nosy\" cannot get path "
            "\"/metrics\"\n");
}

TEST_F(SecureMetrics, AVerdictIsKeptSoAScraperCostsOneReviewAMinute) {
  Serve();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(Get(std::string("Bearer ") + kReaderToken).status, 200);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Get(std::string("Bearer ") + kNosyToken).status, 403);
  EXPECT_EQ(reviews_->authentications, 2);
}

TEST_F(SecureMetrics, AllowedVerdictsExpire) {
  AccessReviewOptions options;
  options.allowed_for = milliseconds(200);
  Serve(MetricsLimits(), options);
  EXPECT_EQ(Get(std::string("Bearer ") + kReaderToken).status, 200);
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(Get(std::string("Bearer ") + kReaderToken).status, 200);
  EXPECT_EQ(reviews_->authentications, 2);
}

// The listener's one thread never waits for a review.
TEST_F(SecureMetrics, WhileAReviewHangsTheListenerAnswersOthers) {
  Serve();
  Hold();
  std::atomic<int> held_status{0};
  std::thread held([&] { held_status = Get(std::string("Bearer ") + kReaderToken).status; });
  std::this_thread::sleep_for(milliseconds(200));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Get().status, 401);
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(1000));
  EXPECT_EQ(held_status, 0);  // Still waiting for its review.
  Release();
  held.join();
  EXPECT_EQ(held_status, 200);
}

TEST_F(SecureMetrics, AReviewLongerThanTheAnswerDeadlineIs503) {
  ServerLimits limits = MetricsLimits();
  limits.answer_deadline = milliseconds(300);
  Serve(limits);
  Hold();
  const Answer answer = Get(std::string("Bearer ") + kReaderToken);
  EXPECT_EQ(answer.status, 503);
  EXPECT_THAT(answer.body, HasSubstr("in time"));
}

TEST_F(SecureMetrics, PastTheWaitingCapMadeUpTokensAre503AtOnce) {
  AccessReviewOptions options;
  options.max_waiting = 2;
  Serve(MetricsLimits(), options);
  Hold();
  std::vector<std::thread> waiting;
  for (int i = 0; i < 2; ++i)
    waiting.emplace_back([this, i] { Get("Bearer made-up-" + std::to_string(i)); });
  std::this_thread::sleep_for(milliseconds(300));
  const Answer third = Get("Bearer made-up-3");
  EXPECT_EQ(third.status, 503);
  EXPECT_THAT(third.body, HasSubstr("too many"));
  Release();
  for (auto& thread : waiting) thread.join();
}

TEST_F(SecureMetrics, AReviewThatFailsIs503AndTheClientLearnsNothingOfTheApiServer) {
  reviews_->fail = true;
  Serve();
  const Answer answer = Get(std::string("Bearer ") + kReaderToken);
  EXPECT_EQ(answer.status, 503);
  EXPECT_THAT(answer.body, Not(HasSubstr("10.96.0.1")));
}

TEST_F(SecureMetrics, PlainHttpToTheTlsListenerGetsNoHttpAnswer) {
  Serve();
  const auto answer = testing::TimedGet(server_->port(), "/metrics", milliseconds(2000));
  EXPECT_EQ(answer.status, 0);
  EXPECT_LT(answer.seconds, 2.0);
}

// Connections that never start their handshake hold a slot until the request
// deadline, never the thread: a scrape in between is answered.
TEST_F(SecureMetrics, StalledHandshakesCannotStarveAScrape) {
  Serve();
  std::vector<int> stalled;
  for (int i = 0; i < 100; ++i)
    stalled.push_back(testing::ConnectLoopback(server_->port(), milliseconds(500)));
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(Get(std::string("Bearer ") + kReaderToken).status, 200) << "scrape " << i;
    EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(1500));
  }
  for (const int fd : stalled)
    if (fd >= 0) ::close(fd);
}

// A certificate pair written the way a mounted Secret holds it.
struct PairFiles {
  std::string cert, key, ca;
};
PairFiles WritePair(const std::string& dir, const std::string& name) {
  tls::TlsMaterial material;
  tls::GenerateTls({name}, material);
  PairFiles files{dir + "/tls.crt", dir + "/tls.key", dir + "/" + name + "-ca.pem"};
  std::ofstream(files.cert) << tls::CertificatePem(material.cert);
  std::ofstream(files.ca) << material.ca_pem;
  FILE* key = std::fopen(files.key.c_str(), "w");
  PEM_write_PrivateKey(key, material.key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(key);
  return files;
}

class CertificateFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gpupool-metrics-certs-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(CertificateFiles, TheServedPairIsReadAgainWhenItRotates) {
  const PairFiles first = WritePair(dir_, "first");
  ServerSecurity security;
  security.tls = tls::ServerContext::FromFiles(first.cert, first.key);
  const auto server = ServeMetrics(
      kLoopbackAnyPort, [] { return std::string("up 1\n"); }, MetricsLimits(), std::move(security));
  EXPECT_EQ(HttpsGet(server->port(), first.ca).status, 200);
  std::this_thread::sleep_for(milliseconds(1100));  // Past the once-a-second look.
  const PairFiles second = WritePair(dir_, "second");
  std::this_thread::sleep_for(milliseconds(1100));
  HttpsGet(server->port(), second.ca);  // The accept that reads the new pair.
  EXPECT_EQ(HttpsGet(server->port(), second.ca).status, 200);
  EXPECT_EQ(HttpsGet(server->port(), first.ca).status, 0);  // The old CA no longer verifies.
}

TEST_F(CertificateFiles, AMissingOrMismatchedFileIsNamed) {
  const PairFiles pair = WritePair(dir_, "pair");
  try {
    tls::ServerContext::FromFiles(dir_ + "/absent.crt", pair.key);
    ADD_FAILURE() << "a missing certificate file was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr(dir_ + "/absent.crt"));
  }
  std::filesystem::create_directory(dir_ + "/other");
  const PairFiles other = WritePair(dir_ + "/other", "other");
  try {
    tls::ServerContext::FromFiles(pair.cert, other.key);
    ADD_FAILURE() << "a key of another certificate was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("does not match"));
  }
}

}  // namespace
}  // namespace gpupool::metrics
