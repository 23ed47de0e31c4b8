// One thread and poll(): a connection that trickles its request (or its TLS
// handshake) costs one slot and one pollfd, never a worker; a request waiting
// for its guard holds no thread either. A thread-pool server (cpp-httplib) lets
// as many slow clients as it has workers starve every other request, since its
// read timeout restarts with each header line.
#include "gpupool/metrics/bounded_http_server.h"

#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "connection_io.h"
#include "gpupool/tls/server_context.h"
#include "http_request.h"

namespace gpupool::metrics {
namespace internal {

// A member of BoundedHttpServer::Loop, so not in an anonymous namespace.
enum class Stage { kReading, kReadingBody, kWaiting, kAnswering, kDraining };

struct Connection {
  ConnectionIo io;
  Stage stage = Stage::kReading;
  std::chrono::steady_clock::time_point deadline;
  std::string received;
  ParsedRequest request;  // Once its headers are in.
  std::string body;       // A POST's, as it comes.
  std::string answer;
  std::size_t sent = 0;
};

}  // namespace internal
namespace {

using internal::Connection;
using internal::Stage;

using Clock = std::chrono::steady_clock;

// Accepts per turn of the loop, so a flood of connects cannot keep the loop
// from reading the connections it already holds.
constexpr int kAcceptsPerTurn = 16;
constexpr std::size_t kDrainBytesPerTurn = 64 * 1024;

short WantedEvents(const Connection& connection) {
  switch (connection.stage) {
    case Stage::kWaiting:
      return 0;
    case Stage::kAnswering:
      return connection.io.PollEvents(POLLOUT);
    default:
      return connection.io.PollEvents(POLLIN);
  }
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

void Signal(int event_fd) {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto written = ::write(event_fd, &one, sizeof one);
}

// A write to a connection its client has closed raises SIGPIPE in the writing
// thread, which ends the process. Plain answers are sent with MSG_NOSIGNAL, but
// OpenSSL writes with write(2); blocked in the server's one thread, the signal
// is never delivered and the write fails with EPIPE, closing that connection.
void BlockBrokenPipeSignal() {
  sigset_t broken_pipe;
  sigemptyset(&broken_pipe);
  sigaddset(&broken_pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &broken_pipe, nullptr);
}

}  // namespace

struct BoundedHttpServer::Loop {
  int listener = -1;
  int stop = -1;     // Readable: the server is being destroyed.
  int decided = -1;  // Readable: the guard can decide a waiting request.
  Routes routes;
  ServerLimits limits;
  ServerSecurity security;
  std::function<void()> wake_on_decision;
  std::vector<Connection> connections;  // Oldest first.
  std::thread thread;

  void Run();
  int PollTimeoutMs() const;
  void Accept();
  void MakeRoomForOne();
  void Service(Connection& connection, short events);
  void Read(Connection& connection);
  void ReadBody(Connection& connection);
  void StartWaiting(Connection& connection);
  void Decide(Connection& connection);
  void DecideWaiting();
  void StartAnswer(Connection& connection, const HttpAnswer& answer);
  void Write(Connection& connection);
  void Drain(Connection& connection);
  void CloseExpired();
};

void BoundedHttpServer::Loop::Run() {
  std::vector<pollfd> polled;
  for (;;) {
    polled.assign({{stop, POLLIN, 0}, {decided, POLLIN, 0}, {listener, POLLIN, 0}});
    for (const auto& connection : connections)
      polled.push_back({connection.io.fd(), WantedEvents(connection), 0});
    if (::poll(polled.data(), polled.size(), PollTimeoutMs()) < 0 && errno != EINTR) return;
    if (polled[0].revents) return;
    if (polled[1].revents) DecideWaiting();
    const std::size_t held = connections.size();
    for (std::size_t i = 0; i < held; ++i)
      if (polled[i + 3].revents) Service(connections[i], polled[i + 3].revents);
    CloseExpired();
    if (polled[2].revents & POLLIN) Accept();
    std::erase_if(connections, [](const Connection& connection) { return !connection.io.open(); });
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
    SSL* ssl = security.tls ? security.tls->Accept(fd) : nullptr;
    if (security.tls && !ssl) {
      ::close(fd);
      continue;
    }
    MakeRoomForOne();
    Connection accepted{internal::ConnectionIo(fd, ssl)};
    accepted.deadline = Clock::now() + limits.request_deadline;
    connections.push_back(std::move(accepted));
    // Most clients send their request with the connect: answer it now.
    Read(connections.back());
  }
}

// Past the cap the oldest goes: a slow client has held it longest.
void BoundedHttpServer::Loop::MakeRoomForOne() {
  auto open = static_cast<std::size_t>(std::count_if(
      connections.begin(), connections.end(), [](const Connection& c) { return c.io.open(); }));
  for (auto& oldest : connections) {
    if (open < limits.max_connections) return;
    if (!oldest.io.open()) continue;
    oldest.io.Close();
    --open;
  }
}

void BoundedHttpServer::Loop::Service(Connection& connection, short events) {
  if (!connection.io.open()) return;
  if (connection.stage == Stage::kReading)
    Read(connection);
  else if (connection.stage == Stage::kReadingBody)
    ReadBody(connection);
  else if (connection.stage == Stage::kAnswering)
    Write(connection);
  else if (connection.stage == Stage::kDraining)
    Drain(connection);
  // A request waiting for its guard polls for nothing: a peer gone meanwhile
  // shows as POLLHUP, which poll reports at once on every turn.
  const short gone =
      connection.stage == Stage::kWaiting ? (POLLERR | POLLNVAL | POLLHUP) : (POLLERR | POLLNVAL);
  if (connection.io.open() && (events & gone)) connection.io.Close();
}

void BoundedHttpServer::Loop::Read(Connection& connection) {
  char buffer[4096];
  while (connection.received.size() <= limits.max_request_bytes) {
    const long got = connection.io.Receive(buffer, sizeof buffer);
    if (got == 0) return;
    if (got < 0) return connection.io.Close();
    connection.received.append(buffer, static_cast<std::size_t>(got));
    const auto end = internal::EndOfHeaders(connection.received);
    if (end && *end <= limits.max_request_bytes) {
      connection.request = internal::ParseRequest(connection.received.substr(0, *end), routes,
                                                  limits.max_body_bytes);
      connection.body = connection.received.substr(*end);
      connection.received.clear();
      if (connection.request.refusal) return StartAnswer(connection, *connection.request.refusal);
      connection.stage = Stage::kReadingBody;
      return ReadBody(connection);
    }
  }
  StartAnswer(connection, internal::RequestTooLarge());
}

// Until Content-Length bytes are in; bytes past them are dropped (one request
// per connection).
void BoundedHttpServer::Loop::ReadBody(Connection& connection) {
  const std::size_t wanted = connection.request.body_length;
  char buffer[16384];
  while (connection.body.size() < wanted) {
    const long got = connection.io.Receive(buffer, sizeof buffer);
    if (got == 0) return;
    if (got < 0) return connection.io.Close();
    connection.body.append(buffer, static_cast<std::size_t>(got));
  }
  connection.body.resize(wanted);
  StartWaiting(connection);
}

void BoundedHttpServer::Loop::StartWaiting(Connection& connection) {
  connection.stage = Stage::kWaiting;
  connection.deadline = Clock::now() + limits.answer_deadline;
  Decide(connection);
}

// A request whose headers are in: answered when the guard allows it, refused
// when it refuses, else left waiting for the guard's wake.
void BoundedHttpServer::Loop::Decide(Connection& connection) {
  const auto answer = [&] {
    return internal::AnswerRoute(connection.request, connection.body, routes);
  };
  if (!security.guard) return StartAnswer(connection, answer());
  const GuardVerdict verdict = security.guard(connection.request.head, wake_on_decision);
  if (verdict.kind == GuardVerdict::Kind::kAllowed)
    StartAnswer(connection, answer());
  else if (verdict.kind == GuardVerdict::Kind::kRefused)
    StartAnswer(connection, verdict.refusal);
}

void BoundedHttpServer::Loop::DecideWaiting() {
  std::uint64_t count = 0;
  [[maybe_unused]] const auto read = ::read(decided, &count, sizeof count);
  for (auto& connection : connections)
    if (connection.io.open() && connection.stage == Stage::kWaiting) Decide(connection);
}

void BoundedHttpServer::Loop::StartAnswer(Connection& connection, const HttpAnswer& answer) {
  connection.stage = Stage::kAnswering;
  connection.deadline = Clock::now() + limits.answer_deadline;
  connection.received.clear();
  connection.body.clear();
  connection.answer = internal::FormatAnswer(answer, connection.request.head_only);
  Write(connection);
}

void BoundedHttpServer::Loop::Write(Connection& connection) {
  while (connection.sent < connection.answer.size()) {
    const long put = connection.io.Send(connection.answer.data() + connection.sent,
                                        connection.answer.size() - connection.sent);
    if (put == 0) return;
    if (put < 0) return connection.io.Close();
    connection.sent += static_cast<std::size_t>(put);
  }
  // Closing with unread request bytes would reset the connection and could
  // discard the answer before the client reads it: read them off first.
  connection.io.FinishWriting();
  connection.stage = Stage::kDraining;
  connection.answer.clear();
  Drain(connection);
}

void BoundedHttpServer::Loop::Drain(Connection& connection) {
  char buffer[4096];
  for (std::size_t drained = 0; drained < kDrainBytesPerTurn; drained += sizeof buffer) {
    const long got = connection.io.Receive(buffer, sizeof buffer);
    if (got == 0) return;
    if (got < 0) return connection.io.Close();
  }
}

// A request still waiting for its guard at its deadline is answered 503; any
// other connection past its deadline is closed.
void BoundedHttpServer::Loop::CloseExpired() {
  const auto now = Clock::now();
  for (auto& connection : connections) {
    if (!connection.io.open() || connection.deadline > now) continue;
    if (connection.stage == Stage::kWaiting)
      StartAnswer(connection,
                  internal::Plain(503, "the request could not be authorized in time\n"));
    else
      connection.io.Close();
  }
}

BoundedHttpServer::BoundedHttpServer(const BindAddress& address,
                                     std::map<std::string, GetHandler> routes, ServerLimits limits,
                                     ServerSecurity security)
    : BoundedHttpServer(address, Routes{std::move(routes), {}}, limits, std::move(security)) {}

BoundedHttpServer::BoundedHttpServer(const BindAddress& address, Routes routes, ServerLimits limits,
                                     ServerSecurity security)
    : loop_(std::make_unique<Loop>()) {
  loop_->listener = ListenOn(address);
  port_ = BoundPort(loop_->listener);
  loop_->stop = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  loop_->decided = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (loop_->stop < 0 || loop_->decided < 0) {
    const std::string why = std::strerror(errno);
    for (const int fd : {loop_->stop, loop_->decided, loop_->listener})
      if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot serve " + address.ToString() + ": eventfd: " + why);
  }
  loop_->routes = std::move(routes);
  loop_->limits = limits;
  loop_->security = std::move(security);
  loop_->wake_on_decision = [fd = loop_->decided] { Signal(fd); };
  loop_->thread = std::thread([loop = loop_.get()] {
    BlockBrokenPipeSignal();
    loop->Run();
  });
}

// The guard goes before the descriptors close: a wake from its thread must
// not reach a descriptor number reused since.
BoundedHttpServer::~BoundedHttpServer() {
  Signal(loop_->stop);
  if (loop_->thread.joinable()) loop_->thread.join();
  loop_->security.guard = nullptr;
  loop_->connections.clear();
  for (const int fd : {loop_->stop, loop_->decided, loop_->listener}) ::close(fd);
}

}  // namespace gpupool::metrics
