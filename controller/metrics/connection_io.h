// The bytes of one BoundedHttpServer connection, in plain TCP or through TLS,
// on a non-blocking socket: each call moves what it can without waiting and
// says which readiness the connection now waits for.
#pragma once

#include <openssl/ssl.h>
#include <poll.h>

#include <cstddef>
#include <string>

namespace gpupool::metrics::internal {

class ConnectionIo {
 public:
  // Takes the socket, and `ssl` (null: plain) bound to it.
  ConnectionIo(int fd, SSL* ssl) : fd_(fd), ssl_(ssl) {}
  ~ConnectionIo() { Close(); }
  ConnectionIo(ConnectionIo&& other) noexcept;
  ConnectionIo& operator=(ConnectionIo&& other) noexcept;
  ConnectionIo(const ConnectionIo&) = delete;
  ConnectionIo& operator=(const ConnectionIo&) = delete;

  bool open() const { return fd_ >= 0; }
  int fd() const { return fd_; }

  // Bytes read into `buffer` (> 0); 0 when nothing is there yet; -1 when the
  // peer closed or the connection failed (the TLS handshake included).
  long Receive(char* buffer, std::size_t size);
  // Bytes sent (> 0); 0 when the socket takes none now; -1 on failure.
  long Send(const char* data, std::size_t size);
  // After the answer: TLS close_notify (best effort), then no more writes;
  // Receive then reads what still comes as plain bytes, to be discarded.
  void FinishWriting();
  void Close();

  // The poll events to wait for: `wanted` (POLLIN to read on, POLLOUT to send
  // on), unless TLS must first read or write for itself.
  short PollEvents(short wanted) const { return blocked_on_ ? blocked_on_ : wanted; }

 private:
  long Finish(int result);

  int fd_ = -1;
  SSL* ssl_ = nullptr;
  short blocked_on_ = 0;  // TLS: POLLIN or POLLOUT it waits for; 0: none.
};

}  // namespace gpupool::metrics::internal
