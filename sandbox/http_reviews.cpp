// The reviews a client makes of itself: who am I (SelfSubjectReview, `kubectl
// auth whoami`) and may I (SelfSubjectAccessReview, `kubectl auth can-i`).
// Every authenticated user may create them, as the real server's
// system:basic-user role allows; nothing is stored.
#include <httplib.h>

#include "sandbox/http_server.h"
#include "sandbox/http_util.h"

namespace gpupool::sandbox {
namespace {

constexpr char kAdminUser[] = "kubernetes-admin";

Json UserInfo(const std::optional<ServiceAccountName>& account) {
  if (!account)
    return {{"username", kAdminUser}, {"groups", {"system:masters", "system:authenticated"}}};
  return {{"username", account->User()},
          {"groups",
           {"system:serviceaccounts", "system:serviceaccounts:" + account->ns,
            "system:authenticated"}}};
}

RequestAttributes AttributesOf(const Json& resource) {
  const auto field = [&](const char* name) { return resource.value(name, std::string()); };
  return {field("verb"),        field("group"),     field("resource"),
          field("subresource"), field("namespace"), field("name")};
}

bool IsReview(const ResourcePath& path, const char* group, const char* plural) {
  return path.group == group && path.version == "v1" && path.plural == plural && path.ns.empty() &&
         path.name.empty() && path.subresource.empty();
}

}  // namespace

// A resource request is decided by RBAC for a ServiceAccount; the admin token,
// like system:masters, may do anything. Non-resource requests are not checked
// by the sandbox, so they are allowed.
Json HttpServer::AccessDecision(const std::optional<ServiceAccountName>& account,
                                const Json& spec) const {
  const bool resource = spec.contains("resourceAttributes");
  if (resource == spec.contains("nonResourceAttributes")) {
    throw Invalid("SelfSubjectAccessReview.authorization.k8s.io", "",
                  {{"spec.resourceAttributes",
                    "Invalid value: \"null\": exactly one of nonResourceAttributes or "
                    "resourceAttributes must be specified"}});
  }
  if (!account || !resource || !authorizer_) return {{"allowed", true}};
  return {{"allowed", authorizer_->Allows(*account, AttributesOf(spec["resourceAttributes"]))}};
}

bool HttpServer::AnswerSelfReview(const httplib::Request& request, httplib::Response& response,
                                  const std::optional<ServiceAccountName>& account,
                                  const ResourcePath& path) {
  if (request.method != "POST") return false;
  const bool access = IsReview(path, "authorization.k8s.io", "selfsubjectaccessreviews");
  if (!access && !IsReview(path, "authentication.k8s.io", "selfsubjectreviews")) return false;
  Json review = DecodeBody(request);
  if (!review.is_object()) throw BadRequest("the request body must be a JSON object");
  review["metadata"] = {{"creationTimestamp", nullptr}};
  review["status"] = access ? AccessDecision(account, review.value("spec", Json::object()))
                            : Json{{"userInfo", UserInfo(account)}};
  WriteJson(response, 201, review.dump());
  return true;
}

}  // namespace gpupool::sandbox
