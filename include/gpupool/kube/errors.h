// Typed errors for everything the client can fail at: API errors decoded from a
// Kubernetes `Status` body, and transport failures (connect, TLS, timeout).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::kube {

// metav1.StatusReason values we act on, plus the transport failures that have
// no HTTP status at all.
enum class Reason {
  kUnknown,
  kBadRequest,
  kUnauthorized,
  kForbidden,
  kNotFound,
  kMethodNotAllowed,
  kAlreadyExists,
  kConflict,
  kGone,  // "Expired" or 410: the resourceVersion is too old; re-list.
  kInvalid,
  kUnsupportedMediaType,  // e.g. a patch type the server does not serve.
  kTooManyRequests,
  kInternalError,
  kServiceUnavailable,
  kTimeout,        // Server-side "Timeout"/"ServerTimeout" or a 504.
  kConnectFailed,  // The request never reached a server.
  kTlsFailed,      // TLS handshake or certificate verification failed.
  kTransport,      // Any other transport failure (connection cut mid-response...).
  kDecode,         // The server answered with something we cannot decode.
};

std::string_view ReasonName(Reason reason);

// One entry of Status.details.causes (for Invalid: which field, and why).
struct StatusCause {
  std::string type;  // e.g. "FieldValueRequired"
  std::string message;
  std::string field;  // e.g. "spec.replicas"
};

class ApiError : public std::runtime_error {
 public:
  ApiError(Reason reason, int http_code, std::string message, std::vector<StatusCause> causes = {},
           std::optional<int> retry_after_seconds = std::nullopt);

  Reason reason() const { return reason_; }
  int http_code() const { return http_code_; }  // 0 for transport failures.
  const std::vector<StatusCause>& causes() const { return causes_; }
  std::optional<int> retry_after_seconds() const { return retry_after_seconds_; }

  // True for the failures a client retries: 429, 500, 503, 504 and transport
  // failures other than TLS (a bad certificate does not heal by retrying).
  bool IsRetryable() const;

 private:
  Reason reason_;
  int http_code_;
  std::vector<StatusCause> causes_;
  std::optional<int> retry_after_seconds_;
};

// Builds the error for a non-2xx response. `context` names the request
// ("GET /api/v1/namespaces/a/pods/b"). The body is decoded as a Status when it
// is one; otherwise the reason comes from the HTTP code alone.
ApiError DecodeStatusError(int http_code, std::string_view body, std::string_view context,
                           std::optional<int> retry_after_seconds = std::nullopt);

inline bool IsNotFound(const ApiError& e) { return e.reason() == Reason::kNotFound; }
inline bool IsAlreadyExists(const ApiError& e) { return e.reason() == Reason::kAlreadyExists; }
inline bool IsConflict(const ApiError& e) { return e.reason() == Reason::kConflict; }
inline bool IsGone(const ApiError& e) { return e.reason() == Reason::kGone; }
inline bool IsInvalid(const ApiError& e) { return e.reason() == Reason::kInvalid; }

// Errors in configuration (kubeconfig, in-cluster files): names the file and field.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gpupool::kube
