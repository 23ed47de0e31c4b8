// One thread and poll(): a connection that trickles its request costs one
// slot and one pollfd, never a worker. A thread-pool server (cpp-httplib) lets
// as many slow clients as it has workers starve every other request, since its
// read timeout restarts with each header line.
#include "gpupool/metrics/bounded_http_server.h"

#include <netdb.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "http_request.h"

namespace gpupool::metrics {
namespace {

using Clock = std::chrono::steady_clock;

// Accepts per turn of the loop, so a flood of connects cannot keep the loop
// from reading the connections it already holds.
constexpr int kAcceptsPerTurn = 16;
constexpr std::size_t kDrainBytesPerTurn = 64 * 1024;

enum class Stage { kReading, kAnswering, kDraining };

struct Connection {
  int fd = -1;
  Stage stage = Stage::kReading;
  Clock::time_point deadline;
  std::string received;
  std::string answer;
  std::size_t sent = 0;
};

void Close(Connection& connection) {
  if (connection.fd >= 0) ::close(connection.fd);
  connection.fd = -1;
}

[[noreturn]] void CannotListen(const BindAddress& address, const std::string& why) {
  throw std::runtime_error("cannot listen on " + address.ToString() + " (" + why +
                           "; the port is in use, or the address is not this machine's)");
}

int BindOne(const addrinfo& candidate) {
  const int fd = ::socket(candidate.ai_family, candidate.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                          candidate.ai_protocol);
  if (fd < 0) return -1;
  // SO_REUSEADDR only: SO_REUSEPORT would let a second process share a port in use.
  int yes = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  if (::bind(fd, candidate.ai_addr, candidate.ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0)
    return fd;
  const int error = errno;
  ::close(fd);
  errno = error;
  return -1;
}

int ListenOn(const BindAddress& address) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(address.port);
  const int resolved = ::getaddrinfo(address.host.empty() ? nullptr : address.host.c_str(),
                                     port.c_str(), &hints, &found);
  if (resolved != 0) CannotListen(address, ::gai_strerror(resolved));
  std::string why = "no address";
  int fd = -1;
  for (const addrinfo* candidate = found; candidate && fd < 0; candidate = candidate->ai_next) {
    fd = BindOne(*candidate);
    if (fd < 0) why = std::strerror(errno);
  }
  ::freeaddrinfo(found);
  if (fd < 0) CannotListen(address, why);
  return fd;
}

int BoundPort(int fd) {
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  if (bound.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

}  // namespace

struct BoundedHttpServer::Loop {
  int listener = -1;
  int wake = -1;
  std::map<std::string, GetHandler> routes;
  ServerLimits limits;
  std::vector<Connection> connections;  // Oldest first.
  std::thread thread;

  void Run();
  int PollTimeoutMs() const;
  void Accept();
  void MakeRoomForOne();
  void Service(Connection& connection, short events);
  void Read(Connection& connection);
  void StartAnswer(Connection& connection, const internal::ParsedAnswer& parsed);
  void Write(Connection& connection);
  void Drain(Connection& connection);
  void CloseExpired();
};

void BoundedHttpServer::Loop::Run() {
  std::vector<pollfd> polled;
  for (;;) {
    polled.assign({{wake, POLLIN, 0}, {listener, POLLIN, 0}});
    for (const auto& connection : connections)
      polled.push_back(
          {connection.fd,
           static_cast<short>(connection.stage == Stage::kAnswering ? POLLOUT : POLLIN), 0});
    if (::poll(polled.data(), polled.size(), PollTimeoutMs()) < 0 && errno != EINTR) return;
    if (polled[0].revents) return;
    const std::size_t held = connections.size();
    for (std::size_t i = 0; i < held; ++i)
      if (polled[i + 2].revents) Service(connections[i], polled[i + 2].revents);
    CloseExpired();
    if (polled[1].revents & POLLIN) Accept();
    std::erase_if(connections, [](const Connection& connection) { return connection.fd < 0; });
  }
}

int BoundedHttpServer::Loop::PollTimeoutMs() const {
  if (connections.empty()) return -1;
  auto nearest = connections.front().deadline;
  for (const auto& connection : connections) nearest = std::min(nearest, connection.deadline);
  const auto wait = std::chrono::ceil<std::chrono::milliseconds>(nearest - Clock::now());
  return static_cast<int>(std::max<std::int64_t>(0, wait.count()));
}

void BoundedHttpServer::Loop::Accept() {
  for (int i = 0; i < kAcceptsPerTurn; ++i) {
    const int fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    MakeRoomForOne();
    Connection accepted;
    accepted.fd = fd;
    accepted.deadline = Clock::now() + limits.request_deadline;
    connections.push_back(std::move(accepted));
    // Most clients send their request with the connect: answer it now.
    Read(connections.back());
  }
}

// Past the cap the oldest goes: a slow client has held it longest.
void BoundedHttpServer::Loop::MakeRoomForOne() {
  auto open = static_cast<std::size_t>(std::count_if(
      connections.begin(), connections.end(), [](const Connection& c) { return c.fd >= 0; }));
  for (auto& oldest : connections) {
    if (open < limits.max_connections) return;
    if (oldest.fd < 0) continue;
    Close(oldest);
    --open;
  }
}

void BoundedHttpServer::Loop::Service(Connection& connection, short events) {
  if (connection.fd < 0) return;
  if (connection.stage == Stage::kReading)
    Read(connection);
  else if (connection.stage == Stage::kAnswering)
    Write(connection);
  else
    Drain(connection);
  if (connection.fd >= 0 && (events & (POLLERR | POLLNVAL))) Close(connection);
}

void BoundedHttpServer::Loop::Read(Connection& connection) {
  char buffer[4096];
  while (connection.received.size() <= limits.max_request_bytes) {
    const ssize_t got = ::recv(connection.fd, buffer, sizeof buffer, 0);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (got <= 0) return Close(connection);
    connection.received.append(buffer, static_cast<std::size_t>(got));
    const auto end = internal::EndOfHeaders(connection.received);
    if (end && *end <= limits.max_request_bytes)
      return StartAnswer(connection,
                         internal::AnswerRequest(connection.received.substr(0, *end), routes));
  }
  StartAnswer(connection, {internal::RequestTooLarge()});
}

void BoundedHttpServer::Loop::StartAnswer(Connection& connection,
                                          const internal::ParsedAnswer& parsed) {
  connection.stage = Stage::kAnswering;
  connection.deadline = Clock::now() + limits.answer_deadline;
  connection.received.clear();
  connection.answer = internal::FormatAnswer(parsed.answer, parsed.head_only);
  Write(connection);
}

void BoundedHttpServer::Loop::Write(Connection& connection) {
  while (connection.sent < connection.answer.size()) {
    const ssize_t put = ::send(connection.fd, connection.answer.data() + connection.sent,
                               connection.answer.size() - connection.sent, MSG_NOSIGNAL);
    if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (put <= 0) return Close(connection);
    connection.sent += static_cast<std::size_t>(put);
  }
  // Closing with unread request bytes would reset the connection and could
  // discard the answer before the client reads it: read them off first.
  ::shutdown(connection.fd, SHUT_WR);
  connection.stage = Stage::kDraining;
  connection.answer.clear();
  Drain(connection);
}

void BoundedHttpServer::Loop::Drain(Connection& connection) {
  char buffer[4096];
  for (std::size_t drained = 0; drained < kDrainBytesPerTurn; drained += sizeof buffer) {
    const ssize_t got = ::recv(connection.fd, buffer, sizeof buffer, 0);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (got <= 0) return Close(connection);
  }
}

void BoundedHttpServer::Loop::CloseExpired() {
  const auto now = Clock::now();
  for (auto& connection : connections)
    if (connection.fd >= 0 && connection.deadline <= now) Close(connection);
}

BoundedHttpServer::BoundedHttpServer(const BindAddress& address,
                                     std::map<std::string, GetHandler> routes, ServerLimits limits)
    : loop_(std::make_unique<Loop>()) {
  loop_->listener = ListenOn(address);
  port_ = BoundPort(loop_->listener);
  loop_->wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (loop_->wake < 0) {
    ::close(loop_->listener);
    throw std::runtime_error("cannot serve " + address.ToString() +
                             ": eventfd: " + std::strerror(errno));
  }
  loop_->routes = std::move(routes);
  loop_->limits = limits;
  loop_->thread = std::thread([loop = loop_.get()] { loop->Run(); });
}

BoundedHttpServer::~BoundedHttpServer() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto written = ::write(loop_->wake, &one, sizeof one);
  if (loop_->thread.joinable()) loop_->thread.join();
  for (auto& connection : loop_->connections) Close(connection);
  ::close(loop_->wake);
  ::close(loop_->listener);
}

}  // namespace gpupool::metrics
