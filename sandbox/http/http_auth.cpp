// Who makes a request, and whether RBAC lets a ServiceAccount make it: the
// one point of the front end where --authorize-service-accounts acts.
#include <httplib.h>

#include "sandbox/http/http_server.h"
#include "sandbox/http/http_util.h"

namespace gpupool::sandbox {
namespace {

// The attributes the real server's RequestInfo derives from the URL: a
// namespace is its own namespace, and a list or watch of one name
// (fieldSelector=metadata.name=x) names it.
RequestAttributes AttributesOf(const httplib::Request& request, const ResourcePath& path,
                               const std::string& verb) {
  RequestAttributes attributes{verb, path.group, path.plural, path.subresource, path.ns, path.name};
  if (attributes.group.empty() && attributes.resource == "namespaces" && attributes.ns.empty()) {
    attributes.ns = attributes.name;
  }
  if ((verb == "list" || verb == "watch") && request.has_param("fieldSelector")) {
    const std::string selector = request.get_param_value("fieldSelector");
    const std::string prefix = "metadata.name=";
    if (selector.rfind(prefix, 0) == 0 && selector.find(',') == std::string::npos) {
      attributes.name = selector.substr(prefix.size());
    }
  }
  return attributes;
}

bool IsTokenRequest(const httplib::Request& request, const ResourcePath& path) {
  return request.method == "POST" && path.group.empty() && path.plural == "serviceaccounts" &&
         !path.ns.empty() && !path.name.empty() && path.subresource == "token";
}

}  // namespace

std::optional<ServiceAccountName> HttpServer::Authenticate(const httplib::Request& request) {
  const std::string auth = request.get_header_value("Authorization");
  const std::string bearer = "Bearer ";
  if (auth == bearer + token_) return std::nullopt;
  if (tokens_ && auth.rfind(bearer, 0) == 0) {
    if (auto account = tokens_->Lookup(auth.substr(bearer.size()))) return account;
  }
  throw Unauthorized();
}

std::optional<TokenHolder> HttpServer::HolderOf(const std::string& token) {
  if (token == token_) return TokenHolder{AdminUser(), {kApiAudience}, true};
  if (!tokens_) return std::nullopt;
  const auto issued = tokens_->Find(token);
  if (!issued) return std::nullopt;
  UserInfo user = issued->account.Info();
  user.uid = issued->uid;
  return TokenHolder{user, issued->audiences, false};
}

bool HttpServer::AuthorizeAndIssue(const httplib::Request& request, httplib::Response& response,
                                   const std::optional<ServiceAccountName>& account,
                                   const ResourcePath& path, const std::string& verb) {
  if (account) authorizer_->Check(*account, AttributesOf(request, path, verb));
  if (!tokens_ || !IsTokenRequest(request, path)) return false;
  const Json body = request.body.empty() ? Json::object() : DecodeBody(request);
  WriteJson(response, 201, tokens_->Issue(path.ns, path.name, body).dump());
  return true;
}

}  // namespace gpupool::sandbox
