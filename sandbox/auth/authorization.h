// RBAC: the decision of kube-apiserver's RBAC authorizer for one request of
// one user, from the Roles, ClusterRoles and their bindings stored in the
// Cluster. Enforced on ServiceAccounts' requests with
// --authorize-service-accounts (the admin token bypasses it, as
// system:masters; discovery is not checked), and the answer to every
// SubjectAccessReview.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "sandbox/api_error.h"
#include "sandbox/cluster.h"

namespace gpupool::sandbox {

// Who a request is made as, or a review asks about.
struct UserInfo {
  std::string name;
  std::string uid;  // empty when not known
  std::vector<std::string> groups;
};

// The user of the admin token: kubernetes-admin, in system:masters.
UserInfo AdminUser();
// Members of this group may do anything, before RBAC is asked.
inline constexpr char kMastersGroup[] = "system:masters";

struct ServiceAccountName {
  std::string ns;
  std::string name;
  // "system:serviceaccount:<ns>:<name>"
  std::string User() const;
  // The user with the groups every account is in: system:serviceaccounts,
  // system:serviceaccounts:<ns> and system:authenticated.
  UserInfo Info() const;
};

// What RBAC looks at: the request's attributes as the real RequestInfo has them.
struct RequestAttributes {
  std::string verb;  // get, list, watch, create, update, patch, delete, deletecollection
  std::string group;
  std::string resource;  // plural
  std::string subresource;
  std::string ns;    // empty for cluster-scoped requests and lists across namespaces
  std::string name;  // empty for create, list and watch without a metadata.name selector
  // A request outside the REST API (/metrics, /healthz): only `verb` and
  // `path` count, matched against rules' nonResourceURLs.
  bool non_resource = false;
  std::string path;

  static RequestAttributes NonResource(const std::string& verb, const std::string& path);
};

// What the authorizer answers: a denial's reason is empty unless a bound role
// is missing, as with the real RBAC authorizer.
struct Decision {
  bool allowed = false;
  std::string reason;
};

// Whether one PolicyRule (of a Role or ClusterRole) covers the request.
bool RuleAllows(const Json& rule, const RequestAttributes& request);
// Whether a subject of a binding in `binding_ns` (empty for a
// ClusterRoleBinding) names the user: a ServiceAccount by the account's user
// name (its namespace defaulting to the binding's), a User by name, a Group
// by one of the user's groups.
bool SubjectMatches(const Json& subject, const UserInfo& user, const std::string& binding_ns = "");

// The 403 the real server answers a denied request with.
ApiError ForbiddenFor(const ServiceAccountName& account, const RequestAttributes& request);

class Authorizer {
 public:
  explicit Authorizer(Cluster& cluster) : cluster_(cluster) {}

  // The decision, and its reason, as a SubjectAccessReview reports them.
  Decision Decide(const UserInfo& user, const RequestAttributes& request);
  bool Allows(const ServiceAccountName& account, const RequestAttributes& request);
  // The rules of every role bound to the account that apply in `ns` (cluster-wide
  // ones only when it is empty), as SelfSubjectRulesReview reports them.
  Json Rules(const ServiceAccountName& account, const std::string& ns);
  // Throws ForbiddenFor(...) when denied, logging the denial on stderr and counting it.
  void Check(const ServiceAccountName& account, const RequestAttributes& request);
  uint64_t denials() const { return denials_; }

 private:
  // Called with a rule and a description of the binding that grants it
  // ("ClusterRoleBinding \"b\" of ClusterRole \"r\" to User \"u\"").
  using RuleVisitor = std::function<bool(const Json& rule, const std::string& granted_by)>;

  // The rules of the role a binding refers to; throws 404 when it is missing.
  Json RulesOf(const Json& role_ref, const std::string& binding_ns);
  // Calls `visit` with each rule of the roles bound to the user that apply in
  // `ns` until it returns true; returns whether one did. Each missing role of a
  // binding to the user adds its error to `errors`.
  bool AnyRule(const UserInfo& user, const std::string& ns, const RuleVisitor& visit,
               std::vector<std::string>& errors);

  Cluster& cluster_;
  std::atomic<uint64_t> denials_{0};
};

}  // namespace gpupool::sandbox
