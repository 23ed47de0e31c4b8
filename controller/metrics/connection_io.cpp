#include "connection_io.h"

#include <openssl/err.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace gpupool::metrics::internal {
namespace {

bool WouldBlock() { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR; }

}  // namespace

ConnectionIo::ConnectionIo(ConnectionIo&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      ssl_(std::exchange(other.ssl_, nullptr)),
      blocked_on_(other.blocked_on_) {}

ConnectionIo& ConnectionIo::operator=(ConnectionIo&& other) noexcept {
  if (this != &other) {
    Close();
    fd_ = std::exchange(other.fd_, -1);
    ssl_ = std::exchange(other.ssl_, nullptr);
    blocked_on_ = other.blocked_on_;
  }
  return *this;
}

long ConnectionIo::Receive(char* buffer, std::size_t size) {
  if (!ssl_) {
    const ssize_t got = ::recv(fd_, buffer, size, 0);
    if (got < 0 && WouldBlock()) return 0;
    return got > 0 ? got : -1;
  }
  return Finish(SSL_read(ssl_, buffer, static_cast<int>(size)));
}

long ConnectionIo::Send(const char* data, std::size_t size) {
  if (!ssl_) {
    const ssize_t put = ::send(fd_, data, size, MSG_NOSIGNAL);
    if (put < 0 && WouldBlock()) return 0;
    return put > 0 ? put : -1;
  }
  return Finish(SSL_write(ssl_, data, static_cast<int>(size)));
}

// An SSL_read or SSL_write result as Receive and Send report it.
long ConnectionIo::Finish(int result) {
  blocked_on_ = 0;
  if (result > 0) return result;
  switch (SSL_get_error(ssl_, result)) {
    case SSL_ERROR_WANT_READ:
      blocked_on_ = POLLIN;
      return 0;
    case SSL_ERROR_WANT_WRITE:
      blocked_on_ = POLLOUT;
      return 0;
    default:
      ERR_clear_error();  // The queue is per thread: leave nothing for the next connection.
      return -1;
  }
}

void ConnectionIo::FinishWriting() {
  if (ssl_) {
    SSL_shutdown(ssl_);
    ERR_clear_error();
    SSL_free(std::exchange(ssl_, nullptr));  // What still comes is read off as plain bytes.
    blocked_on_ = 0;
  }
  ::shutdown(fd_, SHUT_WR);
}

void ConnectionIo::Close() {
  if (ssl_) SSL_free(ssl_);
  ssl_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace gpupool::metrics::internal
