// RBAC for service accounts (--authorize-service-accounts): the decision of
// kube-apiserver's RBAC authorizer for one request of one ServiceAccount,
// from the Roles, ClusterRoles and their bindings stored in the Cluster.
// The admin token bypasses it (system:masters); discovery is not checked.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "sandbox/api_error.h"
#include "sandbox/cluster.h"

namespace gpupool::sandbox {

struct ServiceAccountName {
  std::string ns;
  std::string name;
  // "system:serviceaccount:<ns>:<name>"
  std::string User() const;
};

// What RBAC looks at: the request's attributes as the real RequestInfo has them.
struct RequestAttributes {
  std::string verb;  // get, list, watch, create, update, patch, delete, deletecollection
  std::string group;
  std::string resource;  // plural
  std::string subresource;
  std::string ns;    // empty for cluster-scoped requests and lists across namespaces
  std::string name;  // empty for create, list and watch without a metadata.name selector
};

// Whether one PolicyRule (of a Role or ClusterRole) covers the request.
bool RuleAllows(const Json& rule, const RequestAttributes& request);
// Whether a binding subject names the account (a ServiceAccount, its user
// name, or one of its groups).
bool SubjectMatches(const Json& subject, const ServiceAccountName& account);

// The 403 the real server answers a denied request with.
ApiError ForbiddenFor(const ServiceAccountName& account, const RequestAttributes& request);

class Authorizer {
 public:
  explicit Authorizer(Cluster& cluster) : cluster_(cluster) {}

  bool Allows(const ServiceAccountName& account, const RequestAttributes& request);
  // The rules of every role bound to the account that apply in `ns` (cluster-wide
  // ones only when it is empty), as SelfSubjectRulesReview reports them.
  Json Rules(const ServiceAccountName& account, const std::string& ns);
  // Throws ForbiddenFor(...) when denied, logging the denial on stderr and counting it.
  void Check(const ServiceAccountName& account, const RequestAttributes& request);
  uint64_t denials() const { return denials_; }

 private:
  Json RulesOf(const Json& role_ref, const std::string& binding_ns);
  // Calls `visit` with each rule of Rules(account, ns) until it returns true;
  // returns whether one did.
  bool AnyRule(const ServiceAccountName& account, const std::string& ns,
               const std::function<bool(const Json&)>& visit);

  Cluster& cluster_;
  std::atomic<uint64_t> denials_{0};
};

}  // namespace gpupool::sandbox
