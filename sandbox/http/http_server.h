// The HTTP(S) front end: authentication, routing of Kubernetes REST paths,
// content negotiation (JSON, YAML bodies; Table responses), watches and
// fault injection, over a Cluster.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "sandbox/auth/access_review.h"
#include "sandbox/auth/authorization.h"
#include "sandbox/auth/service_account_tokens.h"
#include "sandbox/cluster.h"
#include "sandbox/http/faults.h"
#include "sandbox/sandbox.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace gpupool::tls {
struct TlsMaterial;
}  // namespace gpupool::tls

namespace gpupool::sandbox {

// A parsed resource URL: /api/v1/namespaces/{ns}/{plural}/{name}/{sub}.
struct ResourcePath {
  std::string group;
  std::string version;
  std::string ns;
  std::string plural;
  std::string name;
  std::string subresource;
};

class HttpServer {
 public:
  HttpServer(Cluster& cluster, const Options& options, const tls::TlsMaterial* tls,
             const std::string& token);
  ~HttpServer();

  // Binds 127.0.0.1:port (0 = free port); returns the port or throws.
  int Bind();
  void Serve();  // blocks until Stop()
  void Stop();

 private:
  void Handle(const httplib::Request& request, httplib::Response& response);
  // The ServiceAccount a request is made as; nullopt for the admin token.
  // Throws 401 Unauthorized for any other token.
  std::optional<ServiceAccountName> Authenticate(const httplib::Request& request);
  // RBAC (403) for service accounts, then the TokenRequest API; true when
  // the request was a TokenRequest and is answered.
  bool AuthorizeAndIssue(const httplib::Request& request, httplib::Response& response,
                         const std::optional<ServiceAccountName>& account, const ResourcePath& path,
                         const std::string& verb);
  // SelfSubjectReview, SelfSubjectAccessReview and SelfSubjectRulesReview (http_reviews.cpp); true
  // when the request was one and is answered.
  bool AnswerSelfReview(const httplib::Request& request, httplib::Response& response,
                        const std::optional<ServiceAccountName>& account, const ResourcePath& path);
  // TokenReview and SubjectAccessReview (http_reviews.cpp), after RBAC; true
  // when the request was one and is answered.
  bool AnswerReview(const httplib::Request& request, httplib::Response& response,
                    const ResourcePath& path);
  // Whom a token authenticates, as a TokenReview reports it; nullopt when no one.
  std::optional<TokenHolder> HolderOf(const std::string& token);
  Json AccessDecision(const std::optional<ServiceAccountName>& account, const Json& spec) const;
  Json RulesDecision(const std::optional<ServiceAccountName>& account, const Json& spec) const;
  // `account` is the requester (nullopt: the admin), whom webhooks are told of.
  void HandleResource(const httplib::Request& request, httplib::Response& response,
                      const ResourcePath& path, const std::optional<ServiceAccountName>& account);
  bool HandleNonResource(const httplib::Request& request, httplib::Response& response);
  void Watch(const httplib::Request& request, httplib::Response& response,
             const ResourcePtr& resource, const std::string& ns);

  Cluster& cluster_;
  Options options_;
  std::string token_;
  FaultInjector faults_;
  std::unique_ptr<ServiceAccountTokens> tokens_;  // with --authorize-service-accounts
  // Enforced on service accounts with --authorize-service-accounts; asked by
  // every SubjectAccessReview.
  std::unique_ptr<Authorizer> authorizer_;
  std::unique_ptr<httplib::Server> server_;
  std::atomic<bool> stopping_{false};
  int port_ = 0;
};

}  // namespace gpupool::sandbox
