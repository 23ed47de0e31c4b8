// What a client reports about its own traffic (request counts and latencies,
// watch restarts). The kube module only calls it: whoever builds the client
// decides what to do with it (the metrics module exports it to Prometheus).
#pragma once

#include <string_view>

namespace gpupool::kube {

struct RequestObservation {
  std::string_view verb;  // The HTTP method: GET, POST, PUT, PATCH, DELETE.
  int code = 0;           // HTTP status; 0 when no answer came (a connection failure).
  double seconds = 0;     // This attempt, from sending to the answer (rate-limit wait excluded).
};

// Called from the threads that make the requests: implementations must be
// thread-safe and quick.
class ClientObserver {
 public:
  virtual ~ClientObserver() = default;
  // Every attempt of a non-streaming request, retries included.
  virtual void OnRequest(const RequestObservation& request) = 0;
  // A reflector watching `resource` (e.g. "pods") again after its first
  // watch ended: the server closed it, it dropped, or its resourceVersion expired.
  virtual void OnWatchRestart(std::string_view resource) = 0;
};

}  // namespace gpupool::kube
