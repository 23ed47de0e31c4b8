// POST routes of BoundedHttpServer (the admission webhook's): the body is read
// whole by Content-Length and handed to the route; missing, chunked, malformed
// and oversized lengths are refused without reading the body; a body that
// never finishes is cut off at the request deadline. Loopback only.
#include <gtest/gtest.h>
#include <unistd.h>

#include "gpupool/metrics/bounded_http_server.h"
#include "loopback_client.h"

namespace gpupool::metrics {
namespace {

using std::chrono::milliseconds;
using testing::ConnectLoopback;
using testing::kLoopbackAnyPort;
using testing::ReadUntilClosed;
using testing::SendAll;
using testing::StatusOf;

constexpr milliseconds kPostTimeout{3000};

// Echoes the body's length and its first and last bytes.
std::unique_ptr<BoundedHttpServer> EchoServer(std::size_t max_body_bytes,
                                              milliseconds request_deadline = milliseconds(2000)) {
  Routes routes;
  routes.post["/echo"] = [](const std::string& body) {
    const std::string ends = body.empty() ? "" : std::string{body.front(), body.back()};
    return HttpAnswer{200, "text/plain", std::to_string(body.size()) + " " + ends};
  };
  routes.get["/healthz"] = [] { return HttpAnswer{200, "text/plain", "ok"}; };
  ServerLimits limits;
  limits.request_deadline = request_deadline;
  limits.max_body_bytes = max_body_bytes;
  return std::make_unique<BoundedHttpServer>(kLoopbackAnyPort, std::move(routes), limits);
}

// The whole answer to `request` sent at once.
std::string Exchange(int port, const std::string& request) {
  const int fd = ConnectLoopback(port, kPostTimeout);
  if (fd < 0) return "";
  std::string answer;
  if (SendAll(fd, request)) answer = ReadUntilClosed(fd, kPostTimeout).bytes;
  ::close(fd);
  return answer;
}

std::string PostWithLength(const std::string& length_header, const std::string& body) {
  return "POST /echo HTTP/1.1\r\nHost: x\r\n" + length_header + "\r\n\r\n" + body;
}

std::string BodyOf(const std::string& answer) {
  const auto end = answer.find("\r\n\r\n");
  return end == std::string::npos ? "" : answer.substr(end + 4);
}

TEST(PostBody, TheWholeBodyReachesTheRouteEvenAcrossManyReads) {
  const auto server = EchoServer(1 << 20);
  std::string body(300 * 1024, 'x');
  body.front() = '{';
  body.back() = '}';
  const std::string answer =
      Exchange(server->port(), PostWithLength("Content-Length: " + std::to_string(body.size()),
                                              body + "trailing bytes are not the body"));
  EXPECT_EQ(StatusOf(answer), 200) << answer.substr(0, 200);
  EXPECT_EQ(BodyOf(answer), std::to_string(body.size()) + " {}");
  EXPECT_EQ(BodyOf(Exchange(server->port(), PostWithLength("Content-Length: 0", ""))), "0 ");
}

TEST(PostBody, BadLengthsAreRefusedWithTheirOwnStatus) {
  const auto server = EchoServer(1024);
  const int port = server->port();
  EXPECT_EQ(StatusOf(Exchange(port, "POST /echo HTTP/1.1\r\n\r\n{}")), 411);
  EXPECT_EQ(StatusOf(Exchange(port, PostWithLength("Transfer-Encoding: chunked", "2\r\n{}\r\n0"))),
            411);
  EXPECT_EQ(StatusOf(Exchange(port, PostWithLength("Content-Length: -4", "{}"))), 400);
  EXPECT_EQ(StatusOf(Exchange(port, PostWithLength("Content-Length: 99999999999999999", ""))), 400);
  const std::string too_long = Exchange(port, PostWithLength("Content-Length: 1025", ""));
  EXPECT_EQ(StatusOf(too_long), 413);
  EXPECT_EQ(BodyOf(too_long), "the body is longer than 1024 bytes\n");
}

TEST(PostBody, EachRouteTakesOnlyItsOwnMethod) {
  const auto server = EchoServer(1024);
  const int port = server->port();
  EXPECT_EQ(StatusOf(Exchange(port, "GET /echo HTTP/1.1\r\n\r\n")), 405);
  EXPECT_EQ(
      StatusOf(Exchange(port, PostWithLength("Content-Length: 2", "{}").replace(5, 5, "/healthz"))),
      405);
  EXPECT_EQ(StatusOf(Exchange(port, "PUT /echo HTTP/1.1\r\nContent-Length: 0\r\n\r\n")), 405);
  EXPECT_EQ(StatusOf(Exchange(port, "GET /healthz HTTP/1.1\r\n\r\n")), 200);
}

TEST(PostBody, ABodyThatNeverEndsIsClosedAtTheRequestDeadline) {
  const auto server = EchoServer(1024, milliseconds(300));
  const int fd = ConnectLoopback(server->port(), kPostTimeout);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, PostWithLength("Content-Length: 100", "{\"half\":")));
  const auto received = ReadUntilClosed(fd, kPostTimeout);
  EXPECT_TRUE(received.closed);
  EXPECT_EQ(received.bytes, "") << "an unfinished body has no answer";
  EXPECT_LT(received.seconds, 2.0);
  ::close(fd);
}

}  // namespace
}  // namespace gpupool::metrics
