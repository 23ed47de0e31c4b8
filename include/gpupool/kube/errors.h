// Typed errors for everything the client can fail at: API errors decoded from a
// Kubernetes `Status` body, and transport failures (connect, TLS, timeout).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
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
  kCancelled,      // The client was shut down (CancelToken) before an answer came.
};

std::string_view ReasonName(Reason reason);

// One entry of Status.details.causes (for Invalid: which field, and why).
struct StatusCause {
  std::string type;  // e.g. "FieldValueRequired"
  std::string message;
  std::string field;  // e.g. "spec.replicas"
};

// The object a Status names in its details (a NotFound's or an
// AlreadyExists's): the resource's plural, its group and the object's name.
struct StatusObject {
  std::string kind;  // the plural, as the server fills it: "trainingjobs"
  std::string group;
  std::string name;
};

class ApiError : public std::runtime_error {
 public:
  ApiError(Reason reason, int http_code, std::string message, std::vector<StatusCause> causes = {},
           std::optional<int> retry_after_seconds = std::nullopt);

  Reason reason() const { return reason_; }
  int http_code() const { return http_code_; }  // 0 for transport failures.
  const std::vector<StatusCause>& causes() const { return causes_; }
  std::optional<int> retry_after_seconds() const { return retry_after_seconds_; }
  // Empty fields where the Status named no object.
  const StatusObject& object() const { return object_; }
  void set_object(StatusObject object) { object_ = std::move(object); }
  // The Status's own message, without the request it answers ("" where the
  // answer was not a Status).
  const std::string& status_message() const { return status_message_; }
  void set_status_message(std::string message) { status_message_ = std::move(message); }

  // True for the failures a client retries: 429, 500, 503, 504 and transport
  // failures other than TLS (a bad certificate does not heal by retrying).
  bool IsRetryable() const;

  // Whether the server may have applied the request although it failed: it
  // was sent and no complete answer came back (connection cut, timeout,
  // cancelled mid-flight), or the server answered 500 or 504 (it may have acted
  // before failing). Refusals (429, 503, any other status) and failures to
  // connect are definite: nothing was applied. Such an "ambiguous" failure is
  // why a write that is unsafe to repeat is not retried (see transport.h).
  bool MayHaveBeenApplied() const;
  // Set by the transport for a curl failure: false when not one byte of the
  // request was sent (the failure is then definite).
  void set_request_sent(bool sent) { request_sent_ = sent; }
  // Set by the transport when an earlier attempt of the same request failed
  // ambiguously: e.g. an AlreadyExists that may answer our own first attempt.
  bool after_ambiguous_attempt() const { return after_ambiguous_attempt_; }
  void set_after_ambiguous_attempt(bool value) { after_ambiguous_attempt_ = value; }

 private:
  Reason reason_;
  int http_code_;
  std::vector<StatusCause> causes_;
  std::optional<int> retry_after_seconds_;
  StatusObject object_;
  std::string status_message_;
  bool request_sent_ = true;
  bool after_ambiguous_attempt_ = false;
};

// The error as a log line: its text (the request, the HTTP code, the reason and
// the Status's message), then each cause ("field: why") the message does not
// already say.
std::string Describe(const ApiError& error);
// What the server said, for a person: the Status's message and each cause it
// does not already say, without the request; what() where there was no Status.
std::string ServerSays(const ApiError& error);

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
inline bool IsCancelled(const ApiError& e) { return e.reason() == Reason::kCancelled; }

// Errors in configuration (kubeconfig, in-cluster files): names the file and field.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gpupool::kube
