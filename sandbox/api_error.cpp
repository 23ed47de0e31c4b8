#include "sandbox/api_error.h"

#include <algorithm>

namespace gpupool::sandbox {
namespace {

// "pods" -> {group "", kind "pods"}; "queues.gpupool.dev" -> {"gpupool.dev", "queues"}.
Json Details(const std::string& resource, const std::string& name) {
  const auto dot = resource.find('.');
  Json details = {{"name", name}, {"kind", resource.substr(0, dot)}};
  if (dot != std::string::npos) details["group"] = resource.substr(dot + 1);
  return details;
}

// The cause type the real server gives a field error: its messages start with
// the type's words ("Required value", "Unsupported value: ...", ...).
std::string CauseReason(const std::string& message) {
  static const std::pair<const char*, const char*> kPrefixes[] = {
      {"Required value", "FieldValueRequired"},   {"Unsupported value", "FieldValueNotSupported"},
      {"Duplicate value", "FieldValueDuplicate"}, {"Forbidden", "FieldValueForbidden"},
      {"Too long", "FieldValueTooLong"},          {"Too many", "FieldValueTooMany"},
      {"Not found", "FieldValueNotFound"},        {"Invalid value", "FieldValueInvalid"}};
  for (const auto& [prefix, reason] : kPrefixes) {
    if (message.rfind(prefix, 0) == 0) return reason;
  }
  // A schema's maxLength: every real version calls it FieldValueTooLong,
  // whatever words its message uses ("may not be longer than", "may not be more than").
  const std::string too_long = " characters long";
  if (message.rfind("must be at most ", 0) == 0 && message.size() > too_long.size() &&
      message.compare(message.size() - too_long.size(), too_long.size(), too_long) == 0) {
    return "FieldValueTooLong";
  }
  if (message.rfind("must be of type", 0) == 0) return "FieldValueTypeInvalid";
  return "FieldValueInvalid";
}

}  // namespace

Json StatusJson(const ApiError& error) {
  Json status = {{"kind", "Status"},    {"apiVersion", "v1"},      {"metadata", Json::object()},
                 {"status", "Failure"}, {"message", error.what()}, {"code", error.code}};
  if (!error.reason.empty()) status["reason"] = error.reason;
  if (!error.details.is_null()) status["details"] = error.details;
  return status;
}

Json SuccessStatus(const Json& details) {
  Json status = {{"kind", "Status"},
                 {"apiVersion", "v1"},
                 {"metadata", Json::object()},
                 {"status", "Success"}};
  if (!details.is_null()) status["details"] = details;
  return status;
}

ApiError NotFound(const std::string& resource, const std::string& name) {
  return ApiError(404, "NotFound", resource + " \"" + name + "\" not found",
                  Details(resource, name));
}

ApiError AlreadyExists(const std::string& resource, const std::string& name) {
  return ApiError(409, "AlreadyExists", resource + " \"" + name + "\" already exists",
                  Details(resource, name));
}

ApiError Conflict(const std::string& resource, const std::string& name, const std::string& why) {
  return ApiError(409, "Conflict",
                  "Operation cannot be fulfilled on " + resource + " \"" + name + "\": " + why,
                  Details(resource, name));
}

ApiError Invalid(const std::string& kind, const std::string& name,
                 const json::FieldErrors& errors) {
  // Every error is a cause; the message names each distinct one once, as the
  // real server's aggregate does.
  Json causes = Json::array();
  std::vector<std::string> distinct;
  for (const auto& error : errors) {
    causes.push_back({{"reason", CauseReason(error.message)},
                      {"message", error.message},
                      {"field", error.path}});
    const std::string text = (error.path.empty() ? "" : error.path + ": ") + error.message;
    if (std::find(distinct.begin(), distinct.end(), text) == distinct.end()) {
      distinct.push_back(text);
    }
  }
  std::string joined;
  for (const auto& text : distinct) joined += (joined.empty() ? "" : ", ") + text;
  if (distinct.size() > 1) joined = "[" + joined + "]";
  // "Lease.coordination.k8s.io" names kind and group, as the real message does.
  const auto dot = kind.find('.');
  // Empty names and kinds are left out, as the real server's omitempty does.
  Json details = {{"causes", causes}};
  if (!name.empty()) details["name"] = name;
  if (dot != 0 && !kind.empty()) details["kind"] = kind.substr(0, dot);
  if (dot != std::string::npos) details["group"] = kind.substr(dot + 1);
  return ApiError(422, "Invalid", kind + " \"" + name + "\" is invalid: " + joined, details);
}

ApiError BadRequest(const std::string& message) { return ApiError(400, "BadRequest", message); }

ApiError Forbidden(const std::string& resource, const std::string& name, const std::string& why) {
  return ApiError(403, "Forbidden", resource + " \"" + name + "\" is forbidden: " + why,
                  Details(resource, name));
}

ApiError Expired(const std::string& message) { return ApiError(410, "Expired", message); }

ApiError MethodNotAllowed(const std::string& message) {
  return ApiError(405, "MethodNotAllowed", message);
}

ApiError UnsupportedMediaType(const std::vector<std::string>& accepted) {
  std::string listed;
  for (const auto& type : accepted) listed += (listed.empty() ? "" : ", ") + type;
  return ApiError(415, "UnsupportedMediaType",
                  "the body of the request was in an unknown format - accepted media types "
                  "include: " +
                      listed);
}

ApiError NotAcceptable(const std::string& message) {
  return ApiError(406, "NotAcceptable", message);
}

ApiError TooManyRequests(const std::string& message, int retry_after) {
  ApiError error(429, "TooManyRequests", message, Json{{"retryAfterSeconds", retry_after}});
  error.retry_after = retry_after;
  return error;
}

ApiError Unauthorized() { return ApiError(401, "Unauthorized", "Unauthorized"); }

ApiError InternalError(const std::string& message) {
  return ApiError(500, "InternalError", "Internal error occurred: " + message);
}

ApiError ServiceUnavailable(const std::string& message, int retry_after) {
  ApiError error(503, "ServiceUnavailable", message, Json{{"retryAfterSeconds", retry_after}});
  error.retry_after = retry_after;
  return error;
}

}  // namespace gpupool::sandbox
