// The reviews a client makes of itself: who am I (SelfSubjectReview, `kubectl
// auth whoami`), may I (SelfSubjectAccessReview, `kubectl auth can-i`) and what
// may I (SelfSubjectRulesReview, `kubectl auth can-i --list`); every
// authenticated user may create them, as the real server's system:basic-user
// role allows. And the reviews a server makes of its own clients (a controller
// guarding its /metrics): whose is this token (TokenReview), may this user do
// that (SubjectAccessReview); those need RBAC's `create` on them. Nothing is
// stored.
#include <httplib.h>

#include "sandbox/auth/access_review.h"
#include "sandbox/http/http_server.h"
#include "sandbox/http/http_util.h"

namespace gpupool::sandbox {
namespace {

Json UserInfoOf(const std::optional<ServiceAccountName>& account) {
  return UserInfoJson(account ? account->Info() : AdminUser());
}

// A rule as a rules review lists it: resource rules and non-resource rules apart.
void AddRule(const Json& rule, Json& status) {
  const auto strings = [&](const char* key) { return rule.value(key, Json::array()); };
  if (rule.contains("nonResourceURLs")) {
    status["nonResourceRules"].push_back(
        {{"verbs", strings("verbs")}, {"nonResourceURLs", strings("nonResourceURLs")}});
    return;
  }
  Json out = {{"verbs", strings("verbs")},
              {"apiGroups", strings("apiGroups")},
              {"resources", strings("resources")}};
  if (rule.contains("resourceNames")) out["resourceNames"] = strings("resourceNames");
  status["resourceRules"].push_back(out);
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
  ValidateAccessReviewSpec(spec, false);
  const RequestAttributes request = ReviewedRequest(spec);
  if (!account || request.non_resource) return {{"allowed", true}};
  return {{"allowed", authorizer_->Allows(*account, request)}};
}

// What the account may do in the namespace the review names; the admin token
// may do anything.
Json HttpServer::RulesDecision(const std::optional<ServiceAccountName>& account,
                               const Json& spec) const {
  Json status = {
      {"resourceRules", Json::array()}, {"nonResourceRules", Json::array()}, {"incomplete", false}};
  if (!account) {
    AddRule({{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}}, status);
    AddRule({{"verbs", {"*"}}, {"nonResourceURLs", {"*"}}}, status);
    return status;
  }
  for (const auto& rule : authorizer_->Rules(*account, spec.value("namespace", "")))
    AddRule(rule, status);
  return status;
}

bool HttpServer::AnswerSelfReview(const httplib::Request& request, httplib::Response& response,
                                  const std::optional<ServiceAccountName>& account,
                                  const ResourcePath& path) {
  if (request.method != "POST") return false;
  const bool access = IsReview(path, "authorization.k8s.io", "selfsubjectaccessreviews");
  const bool rules = IsReview(path, "authorization.k8s.io", "selfsubjectrulesreviews");
  const bool who = IsReview(path, "authentication.k8s.io", "selfsubjectreviews");
  if (!access && !rules && !who) return false;
  Json review = DecodeBody(request);
  if (!review.is_object()) throw BadRequest("the request body must be a JSON object");
  const Json spec = review.value("spec", Json::object());
  review["metadata"] = {{"creationTimestamp", nullptr}};
  review["status"] = access  ? AccessDecision(account, spec)
                     : rules ? RulesDecision(account, spec)
                             : Json{{"userInfo", UserInfoOf(account)}};
  WriteJson(response, 201, review.dump());
  return true;
}

// Answered from the stored RBAC objects whether or not they are enforced on
// requests (--authorize-service-accounts): it is a question about them.
bool HttpServer::AnswerReview(const httplib::Request& request, httplib::Response& response,
                              const ResourcePath& path) {
  if (request.method != "POST") return false;
  const bool token = IsReview(path, "authentication.k8s.io", "tokenreviews");
  const bool access = IsReview(path, "authorization.k8s.io", "subjectaccessreviews");
  if (!token && !access) return false;
  Json review = DecodeBody(request);
  if (!review.is_object()) throw BadRequest("the request body must be a JSON object");
  const Json spec = review.value("spec", Json::object());
  if (token) {
    review["status"] = TokenReviewStatus(HolderOf(ReviewedToken(spec)), spec);
  } else {
    ValidateAccessReviewSpec(spec, true);
    review["status"] =
        AccessReviewStatus(authorizer_->Decide(ReviewedUser(spec), ReviewedRequest(spec)));
  }
  review["apiVersion"] = token ? "authentication.k8s.io/v1" : "authorization.k8s.io/v1";
  review["kind"] = token ? "TokenReview" : "SubjectAccessReview";
  if (!review["metadata"].is_object()) review["metadata"] = Json::object();
  review["metadata"]["creationTimestamp"] = nullptr;
  WriteJson(response, 201, review.dump());
  return true;
}

}  // namespace gpupool::sandbox
