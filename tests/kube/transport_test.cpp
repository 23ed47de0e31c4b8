#include "gpupool/kube/transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "gpupool/kube/errors.h"
#include "test_tls.h"
#include "test_util.h"

namespace gpupool::kube {
namespace {

using namespace gpupool::kube::testing;
using ::testing::HasSubstr;

class TlsTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("kube-tls");
    tls_ = MakeTlsFiles(dir_, {"127.0.0.1", "kubernetes.test"});
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  RestConfig ConfigFor(const FakeApiServer& server) {
    RestConfig config = PlainConfig(server);
    config.ca_pem = tls_.ca_pem;
    return config;
  }

  // Expects a TLS failure, reported as one.
  void ExpectTlsFailure(const RestConfig& config) {
    Transport transport(config, FastOptions());
    try {
      transport.Send({"GET", "/api/v1/namespaces/a/pods"});
      ADD_FAILURE() << "request succeeded";
    } catch (const ApiError& e) {
      EXPECT_EQ(e.reason(), Reason::kTlsFailed) << e.what();
      EXPECT_THAT(e.what(), HasSubstr("TLS failure"));
    }
  }

  std::string dir_;
  TlsFiles tls_;
};

TEST_F(TlsTransportTest, VerifiesServerWithCaDataAndReusesOneConnection) {
  FakeApiServer server(FakeTls{tls_.server_cert, tls_.server_key, ""});
  server.RequireToken("t0k3n");
  RestConfig config = ConfigFor(server);
  config.token = "t0k3n";
  Transport transport(config, FastOptions());
  for (int i = 0; i < 20; ++i) EXPECT_EQ(transport.Send({"GET", "/api/v1/pods"}).status, 200);
  std::set<int> ports;
  for (const auto& request : server.Requests()) ports.insert(request.remote_port);
  EXPECT_EQ(ports.size(), 1u) << "every request should reuse the first connection";
  EXPECT_EQ(transport.stats().connections, 1u);
  EXPECT_EQ(server.Requests().back().authorization, "Bearer t0k3n");
}

TEST_F(TlsTransportTest, WrongCaMissingCaAndWrongNameAreTlsErrors) {
  FakeApiServer server(FakeTls{tls_.server_cert, tls_.server_key, ""});
  RestConfig wrong_ca = ConfigFor(server);
  wrong_ca.ca_pem = tls_.other_ca_pem;
  ExpectTlsFailure(wrong_ca);
  RestConfig no_ca = ConfigFor(server);
  no_ca.ca_pem.clear();  // System trust store: does not know our test CA.
  ExpectTlsFailure(no_ca);
  RestConfig wrong_name = ConfigFor(server);
  wrong_name.tls_server_name = "not-in-the-cert.test";
  ExpectTlsFailure(wrong_name);
  EXPECT_TRUE(server.Requests().empty());
}

TEST_F(TlsTransportTest, InsecureSkipVerifyAcceptsAnyCertificate) {
  FakeApiServer server(FakeTls{tls_.server_cert, tls_.server_key, ""});
  RestConfig config = ConfigFor(server);
  config.ca_pem.clear();
  config.insecure_skip_tls_verify = true;
  EXPECT_EQ(Transport(config, FastOptions()).Send({"GET", "/api/v1/pods"}).status, 200);
}

TEST_F(TlsTransportTest, TlsServerNameVerifiesThatNameButConnectsToTheUrlHost) {
  std::string dir = MakeTempDir("kube-tls-name");
  TlsFiles named = MakeTlsFiles(dir, {"kubernetes.test"});
  FakeApiServer server(FakeTls{named.server_cert, named.server_key, ""});
  RestConfig config = PlainConfig(server);
  config.ca_pem = named.ca_pem;
  ExpectTlsFailure(config);  // The certificate does not name 127.0.0.1.
  config.tls_server_name = "kubernetes.test";
  EXPECT_EQ(Transport(config, FastOptions()).Send({"GET", "/api/v1/pods"}).status, 200);
  EXPECT_EQ(server.Requests().back().host, "127.0.0.1:" + std::to_string(server.port()));
  std::filesystem::remove_all(dir);
}

TEST_F(TlsTransportTest, ClientCertificateAuthenticates) {
  FakeApiServer server(FakeTls{tls_.server_cert, tls_.server_key, tls_.ca_cert});
  RestConfig config = ConfigFor(server);
  config.client_cert_pem = tls_.client_cert_pem;
  config.client_key_pem = tls_.client_key_pem;
  EXPECT_EQ(Transport(config, FastOptions()).Send({"GET", "/api/v1/pods"}).status, 200);
  EXPECT_EQ(server.Requests().back().client_cert_cn, "gpupool-test-user");
  RestConfig anonymous = ConfigFor(server);
  EXPECT_THROW(Transport(anonymous, FastOptions()).Send({"GET", "/api/v1/pods"}), ApiError);
}

TEST_F(TlsTransportTest, RotatedTokenFileIsReRead) {
  FakeApiServer server;
  std::string token_file = dir_ + "/token";
  WriteFile(token_file, "first\n");
  RestConfig config = PlainConfig(server);
  config.token_file = token_file;
  Transport transport(config, FastOptions());
  transport.Send({"GET", "/api/v1/pods"});
  EXPECT_EQ(server.Requests().back().authorization, "Bearer first");
  WriteFile(token_file, "second-token");
  transport.Send({"GET", "/api/v1/pods"});
  EXPECT_EQ(server.Requests().back().authorization, "Bearer second-token");
}

TEST(Transport, RetriesTransientFailuresWithBackoff) {
  FakeApiServer server;
  Transport transport(PlainConfig(server), FastOptions());
  server.FailNext(1, 500);
  server.FailNext(1, 503);
  server.FailNext(1, 504);
  EXPECT_EQ(transport.Send({"GET", "/api/v1/pods"}).status, 200);
  EXPECT_EQ(server.Requests().size(), 4u);
  EXPECT_EQ(transport.stats().retries, 3u);
  server.FailNext(4, 503);  // One more than max_retries.
  try {
    transport.Send({"GET", "/api/v1/pods"});
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::kServiceUnavailable);
  }
}

TEST(Transport, HonoursRetryAfterOn429) {
  FakeApiServer server;
  Transport transport(PlainConfig(server), FastOptions());
  server.FailNext(1, 429, 1);
  auto start = Clock::now();
  EXPECT_EQ(transport.Send({"GET", "/api/v1/pods"}).status, 200);
  EXPECT_GE(Clock::now() - start, Millis(950));
}

TEST(Transport, NeverRetriesOtherClientErrors) {
  FakeApiServer server;
  Transport transport(PlainConfig(server), FastOptions());
  for (int code : {400, 403, 404}) {
    server.ClearRequests();
    server.FailNext(1, code);
    EXPECT_THROW(transport.Send({"POST", "/api/v1/namespaces/a/pods", "{}"}), ApiError);
    EXPECT_EQ(server.Requests().size(), 1u) << code;
  }
}

TEST(Transport, ConnectionRefusedIsRetriedThenReported) {
  int port;
  {
    FakeApiServer server;  // Take a free port, then close it.
    port = server.port();
  }
  RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port);
  Transport transport(config, FastOptions());
  try {
    transport.Send({"GET", "/api/v1/pods"});
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::kConnectFailed);
    EXPECT_THAT(e.what(), HasSubstr("cannot connect"));
  }
  EXPECT_EQ(transport.stats().requests, 4u);
}

TEST(Transport, RateLimitsToQpsAfterBurst) {
  FakeApiServer server;
  TransportOptions options = FastOptions();
  options.qps = 20;
  options.burst = 2;
  Transport transport(PlainConfig(server), options);
  auto start = Clock::now();
  for (int i = 0; i < 10; ++i) transport.Send({"GET", "/api/v1/pods"});
  EXPECT_GE(Clock::now() - start, Millis(380));  // (10 - 2) / 20 s
}

TEST(Transport, RequestTimeout) {
  httplib::Server slow;
  slow.Get("/slow", [](const httplib::Request&, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    res.set_content("{}", "application/json");
  });
  int port = slow.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { slow.listen_after_bind(); });
  RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port);
  TransportOptions options = FastOptions();
  options.request_timeout = Millis(150);
  try {
    Transport(config, options).Send({"GET", "/slow"});
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::kTimeout);
  }
  slow.stop();
  thread.join();
}

}  // namespace
}  // namespace gpupool::kube
