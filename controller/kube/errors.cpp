#include "gpupool/kube/errors.h"

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace gpupool::kube {
namespace {

struct ReasonEntry {
  Reason reason;
  std::string_view name;
};

// Status.reason strings; "Expired" and "Gone" both mean "re-list".
constexpr std::array kStatusReasons = {
    ReasonEntry{Reason::kBadRequest, "BadRequest"},
    ReasonEntry{Reason::kUnauthorized, "Unauthorized"},
    ReasonEntry{Reason::kForbidden, "Forbidden"},
    ReasonEntry{Reason::kNotFound, "NotFound"},
    ReasonEntry{Reason::kMethodNotAllowed, "MethodNotAllowed"},
    ReasonEntry{Reason::kAlreadyExists, "AlreadyExists"},
    ReasonEntry{Reason::kConflict, "Conflict"},
    ReasonEntry{Reason::kGone, "Expired"},
    ReasonEntry{Reason::kGone, "Gone"},
    ReasonEntry{Reason::kInvalid, "Invalid"},
    ReasonEntry{Reason::kUnsupportedMediaType, "UnsupportedMediaType"},
    ReasonEntry{Reason::kTooManyRequests, "TooManyRequests"},
    ReasonEntry{Reason::kInternalError, "InternalError"},
    ReasonEntry{Reason::kServiceUnavailable, "ServiceUnavailable"},
    ReasonEntry{Reason::kTimeout, "Timeout"},
    ReasonEntry{Reason::kTimeout, "ServerTimeout"},
};

Reason ReasonFromCode(int code) {
  switch (code) {
    case 400:
      return Reason::kBadRequest;
    case 401:
      return Reason::kUnauthorized;
    case 403:
      return Reason::kForbidden;
    case 404:
      return Reason::kNotFound;
    case 405:
      return Reason::kMethodNotAllowed;
    case 409:
      return Reason::kConflict;
    case 410:
      return Reason::kGone;
    case 422:
      return Reason::kInvalid;
    case 429:
      return Reason::kTooManyRequests;
    case 500:
      return Reason::kInternalError;
    case 503:
      return Reason::kServiceUnavailable;
    case 504:
      return Reason::kTimeout;
    default:
      return Reason::kUnknown;
  }
}

Reason ReasonFromStatus(std::string_view name, int code) {
  for (const auto& entry : kStatusReasons) {
    if (entry.name == name) return entry.reason;
  }
  return ReasonFromCode(code);
}

// A Status's details; an empty object where it has none.
const nlohmann::json& DetailsOf(const nlohmann::json& status) {
  static const nlohmann::json kNone = nlohmann::json::object();
  const auto details = status.find("details");
  return details != status.end() && details->is_object() ? *details : kNone;
}

std::string StringAt(const nlohmann::json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

std::vector<StatusCause> ReadCauses(const nlohmann::json& details) {
  std::vector<StatusCause> causes;
  auto list = details.find("causes");
  if (list == details.end() || !list->is_array()) return causes;
  for (const auto& cause : *list) {
    if (!cause.is_object()) continue;
    causes.push_back(
        {StringAt(cause, "reason"), StringAt(cause, "message"), StringAt(cause, "field")});
  }
  return causes;
}

}  // namespace

std::string_view ReasonName(Reason reason) {
  for (const auto& entry : kStatusReasons) {
    if (entry.reason == reason) return entry.name;
  }
  switch (reason) {
    case Reason::kConnectFailed:
      return "ConnectFailed";
    case Reason::kTlsFailed:
      return "TlsFailed";
    case Reason::kTransport:
      return "TransportError";
    case Reason::kDecode:
      return "DecodeError";
    case Reason::kCancelled:
      return "Cancelled";
    default:
      return "Unknown";
  }
}

ApiError::ApiError(Reason reason, int http_code, std::string message,
                   std::vector<StatusCause> causes, std::optional<int> retry_after_seconds)
    : std::runtime_error(std::move(message)),
      reason_(reason),
      http_code_(http_code),
      causes_(std::move(causes)),
      retry_after_seconds_(retry_after_seconds) {}

bool ApiError::IsRetryable() const {
  switch (reason_) {
    case Reason::kConnectFailed:
    case Reason::kTransport:
      return true;
    default:
      return http_code_ == 429 || http_code_ == 500 || http_code_ == 503 || http_code_ == 504;
  }
}

bool ApiError::MayHaveBeenApplied() const {
  switch (reason_) {
    case Reason::kConnectFailed:
    case Reason::kTlsFailed:
      return false;
    case Reason::kTransport:
    case Reason::kCancelled:
    case Reason::kDecode:
      return request_sent_;
    default:
      if (http_code_ == 0) return request_sent_;  // A curl timeout.
      return http_code_ == 500 || http_code_ == 504;
  }
}

ApiError DecodeStatusError(int http_code, std::string_view body, std::string_view context,
                           std::optional<int> retry_after_seconds) {
  std::string prefix = std::string(context) + ": HTTP " + std::to_string(http_code);
  auto status = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!status.is_object() || status.value("kind", "") != "Status") {
    std::string text(body.substr(0, 200));
    return ApiError(ReasonFromCode(http_code), http_code,
                    text.empty() ? prefix : prefix + ": " + text, {}, retry_after_seconds);
  }
  Reason reason = ReasonFromStatus(StringAt(status, "reason"), http_code);
  std::string message = StringAt(status, "message");
  const nlohmann::json& details = DetailsOf(status);
  std::vector<StatusCause> causes = ReadCauses(details);
  if (!retry_after_seconds && details.contains("retryAfterSeconds") &&
      details["retryAfterSeconds"].is_number())
    retry_after_seconds = details["retryAfterSeconds"].get<int>();
  std::string text = prefix + " " + std::string(ReasonName(reason));
  if (!message.empty()) text += ": " + message;
  ApiError error(reason, http_code, std::move(text), std::move(causes), retry_after_seconds);
  error.set_object(
      {StringAt(details, "kind"), StringAt(details, "group"), StringAt(details, "name")});
  error.set_status_message(std::move(message));
  return error;
}

namespace {

// `text`, then each of `causes` it does not already say, "; "-separated.
std::string WithUnsaidCauses(std::string text, const std::vector<StatusCause>& causes) {
  for (const auto& cause : causes) {
    const std::string line = (cause.field.empty() ? "" : cause.field + ": ") + cause.message;
    if (text.find(line) == std::string::npos) text += "; " + line;
  }
  return text;
}

}  // namespace

std::string Describe(const ApiError& error) {
  return WithUnsaidCauses(error.what(), error.causes());
}

std::string ServerSays(const ApiError& error) {
  if (error.status_message().empty()) return Describe(error);
  return WithUnsaidCauses(error.status_message(), error.causes());
}

}  // namespace gpupool::kube
