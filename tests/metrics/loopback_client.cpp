#include "loopback_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace gpupool::metrics::testing {
namespace {

using Clock = std::chrono::steady_clock;

int MillisecondsLeft(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Whether the server has closed or reset `fd` (without blocking).
bool ServerClosed(int fd) {
  char byte;
  const ssize_t got = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

}  // namespace

int ConnectLoopback(int port, std::chrono::milliseconds timeout) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    pollfd connecting{fd, POLLOUT, 0};
    int error = errno;
    socklen_t length = sizeof error;
    if (error != EINPROGRESS || ::poll(&connecting, 1, static_cast<int>(timeout.count())) != 1 ||
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) {
      ::close(fd);
      return -1;
    }
  }
  return fd;
}

bool SendAll(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    pollfd writable{fd, POLLOUT, 0};
    if (::poll(&writable, 1, 2000) != 1) return false;
    const ssize_t put = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (put < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (put <= 0) return false;
    sent += static_cast<std::size_t>(put);
  }
  return true;
}

Received ReadUntilClosed(int fd, std::chrono::milliseconds timeout) {
  const auto start = Clock::now();
  const auto deadline = start + timeout;
  Received received;
  char buffer[4096];
  while (Clock::now() < deadline) {
    pollfd readable{fd, POLLIN, 0};
    if (::poll(&readable, 1, MillisecondsLeft(deadline)) != 1) continue;
    const ssize_t got = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (got <= 0) {
      received.closed = true;
      break;
    }
    received.bytes.append(buffer, static_cast<std::size_t>(got));
  }
  received.seconds = SecondsSince(start);
  return received;
}

int StatusOf(const std::string& answer) {
  if (answer.rfind("HTTP/1.1 ", 0) != 0 || answer.size() < 12) return 0;
  return std::atoi(answer.substr(9, 3).c_str());
}

TimedAnswer TimedGet(int port, const std::string& path, std::chrono::milliseconds timeout) {
  const auto start = Clock::now();
  TimedAnswer answer;
  const int fd = ConnectLoopback(port, timeout);
  if (fd < 0) return answer;
  const auto left = std::chrono::milliseconds(MillisecondsLeft(start + timeout));
  if (SendAll(fd, "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: probe\r\n\r\n")) {
    const auto received = ReadUntilClosed(fd, left);
    const auto body = received.bytes.find("\r\n\r\n");
    if (received.closed && body != std::string::npos) {
      answer.status = StatusOf(received.bytes);
      answer.body = received.bytes.substr(body + 4);
    }
  }
  ::close(fd);
  answer.seconds = SecondsSince(start);
  return answer;
}

SlowClients::SlowClients(int port, int count, std::chrono::milliseconds interval)
    : port_(port), interval_(interval), count_(count), thread_([this] { Run(); }) {}

SlowClients::~SlowClients() {
  stop_ = true;
  thread_.join();
}

void SlowClients::Run() {
  std::vector<int> sockets(static_cast<std::size_t>(count_), -1);
  while (!stop_) {
    Tick(sockets);
    std::this_thread::sleep_for(interval_);
  }
  for (const int fd : sockets)
    if (fd >= 0) ::close(fd);
}

void SlowClients::Tick(std::vector<int>& sockets) {
  static const std::string kHeaderBytes = "X-Slow: a\r\n";
  for (std::size_t i = 0; i < sockets.size() && !stop_; ++i) {
    int& fd = sockets[i];
    if (fd >= 0 && ServerClosed(fd)) {
      ::close(fd);
      fd = -1;
    }
    if (fd < 0) {
      fd = ConnectLoopback(port_, std::chrono::milliseconds(200));
      if (fd < 0) continue;
      ++connects_;
      if (::send(fd, "GET /healthz HTTP/1.1\r\n", 23, MSG_NOSIGNAL) > 0) continue;
    }
    const char byte = kHeaderBytes[static_cast<std::size_t>(bytes_sent_) % kHeaderBytes.size()];
    if (::send(fd, &byte, 1, MSG_NOSIGNAL) == 1) ++bytes_sent_;
  }
}

}  // namespace gpupool::metrics::testing
