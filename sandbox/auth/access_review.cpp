// TokenReview and SubjectAccessReview answers, worded as kube-apiserver's.
#include "sandbox/auth/access_review.h"

#include <algorithm>

#include "sandbox/auth/service_account_tokens.h"

namespace gpupool::sandbox {
namespace {

bool IsSet(const Json& spec, const char* field) {
  const auto it = spec.find(field);
  return it != spec.end() && !it->is_null();
}

std::vector<std::string> StringsOf(const Json& value) {
  std::vector<std::string> strings;
  if (!value.is_array()) return strings;
  for (const auto& item : value) {
    if (item.is_string()) strings.push_back(item.get<std::string>());
  }
  return strings;
}

// A string as Go's %q writes it (close enough: JSON escapes the same characters).
std::string GoQuoted(const std::string& text) { return Json(text).dump(); }

// A list of strings as Go's %q writes it: ["a" "b"].
std::string GoQuotedList(const std::vector<std::string>& strings) {
  std::string text;
  for (const auto& item : strings) text += (text.empty() ? "" : " ") + GoQuoted(item);
  return "[" + text + "]";
}

Json Unauthenticated(const std::string& error) {
  return {{"user", Json::object()}, {"error", error}};
}

}  // namespace

void ValidateAccessReviewSpec(const Json& spec, bool names_subject) {
  const bool resource = IsSet(spec, "resourceAttributes");
  const bool non_resource = IsSet(spec, "nonResourceAttributes");
  json::FieldErrors errors;
  if (resource && non_resource) {
    // The real message prints the Go value of the attributes.
    const Json& attributes = spec["nonResourceAttributes"];
    errors.push_back({"spec.nonResourceAttributes",
                      "Invalid value: authorization.NonResourceAttributes{Path:" +
                          GoQuoted(attributes.value("path", "")) +
                          ", Verb:" + GoQuoted(attributes.value("verb", "")) +
                          "}: cannot be specified in combination with resourceAttributes"});
  }
  if (!resource && !non_resource) {
    errors.push_back({"spec.resourceAttributes",
                      "Invalid value: \"null\": exactly one of nonResourceAttributes or "
                      "resourceAttributes must be specified"});
  }
  if (names_subject && spec.value("user", "").empty() &&
      StringsOf(spec.value("groups", Json())).empty()) {
    errors.push_back(
        {"spec.user", "Invalid value: \"\": at least one of user or group must be specified"});
  }
  if (!errors.empty()) throw Invalid(kAccessReviewKind, "", errors);
}

RequestAttributes ReviewedRequest(const Json& spec) {
  if (IsSet(spec, "nonResourceAttributes")) {
    const Json& attributes = spec["nonResourceAttributes"];
    return RequestAttributes::NonResource(attributes.value("verb", ""),
                                          attributes.value("path", ""));
  }
  const Json& attributes = spec["resourceAttributes"];
  const auto field = [&](const char* name) { return attributes.value(name, std::string()); };
  return {field("verb"),        field("group"),     field("resource"),
          field("subresource"), field("namespace"), field("name")};
}

UserInfo ReviewedUser(const Json& spec) {
  return {spec.value("user", ""), spec.value("uid", ""), StringsOf(spec.value("groups", Json()))};
}

Json AccessReviewStatus(const Decision& decision) {
  Json status = {{"allowed", decision.allowed}};
  if (!decision.reason.empty()) status["reason"] = decision.reason;
  return status;
}

std::string ReviewedToken(const Json& spec) {
  const std::string token = spec.value("token", "");
  if (token.empty()) throw BadRequest("token is required for TokenReview in authentication");
  return token;
}

Json TokenReviewStatus(const std::optional<TokenHolder>& holder, const Json& spec) {
  constexpr char kUnknown[] = "invalid bearer token";
  if (!holder) return Unauthenticated(kUnknown);
  std::vector<std::string> requested = StringsOf(spec.value("audiences", Json()));
  if (requested.empty()) requested = {kApiAudience};
  std::vector<std::string> shared;
  for (const auto& audience : requested) {
    if (std::find(holder->audiences.begin(), holder->audiences.end(), audience) !=
        holder->audiences.end())
      shared.push_back(audience);
  }
  if (shared.empty()) {
    if (holder->static_token) return Unauthenticated(kUnknown);
    // The real server's aggregate: its static tokens do not know the token
    // either, and the service account authenticator names the audiences.
    return Unauthenticated(std::string("[") + kUnknown + ", token audiences " +
                           GoQuotedList(holder->audiences) +
                           " is invalid for the target audiences " + GoQuotedList(requested) + "]");
  }
  return {{"authenticated", true}, {"user", UserInfoJson(holder->user)}, {"audiences", shared}};
}

Json UserInfoJson(const UserInfo& user) {
  Json json = {{"username", user.name}};
  if (!user.uid.empty()) json["uid"] = user.uid;
  json["groups"] = user.groups;
  return json;
}

}  // namespace gpupool::sandbox
