// Errors of the sandbox API server, carried as exceptions from deep inside a
// request to the HTTP layer, which writes them as Kubernetes `Status` objects
// with the reason and code the real server would use.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpupool/json/field_error.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

struct ApiError : std::runtime_error {
  int code;
  std::string reason;   // e.g. "NotFound", "Conflict", "Invalid"
  Json details;         // null or a StatusDetails object
  int retry_after = 0;  // seconds, sent as Retry-After when > 0

  ApiError(int code, std::string reason, const std::string& message, Json details = nullptr)
      : std::runtime_error(message),
        code(code),
        reason(std::move(reason)),
        details(std::move(details)) {}
};

// The `Status` object for an error, as written in HTTP bodies and watch ERROR events.
Json StatusJson(const ApiError& error);
Json SuccessStatus(const Json& details = nullptr);

// `resource` is the plural with its group when there is one ("pods", "queues.gpupool.dev").
ApiError NotFound(const std::string& resource, const std::string& name);
ApiError AlreadyExists(const std::string& resource, const std::string& name);
ApiError Conflict(const std::string& resource, const std::string& name, const std::string& why);
ApiError Invalid(const std::string& kind, const std::string& name, const json::FieldErrors& errors);
ApiError BadRequest(const std::string& message);
ApiError Forbidden(const std::string& resource, const std::string& name, const std::string& why);
ApiError Expired(const std::string& message);
ApiError MethodNotAllowed(const std::string& message);
// 415, listing the media types the request could have used, as the real server does.
ApiError UnsupportedMediaType(const std::vector<std::string>& accepted);
ApiError NotAcceptable(const std::string& message);
ApiError TooManyRequests(const std::string& message, int retry_after);
ApiError Unauthorized();
ApiError InternalError(const std::string& message);
ApiError ServiceUnavailable(const std::string& message, int retry_after);

}  // namespace gpupool::sandbox
