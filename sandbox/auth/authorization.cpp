#include "sandbox/auth/authorization.h"

#include <algorithm>
#include <iostream>

namespace gpupool::sandbox {
namespace {

const char kRbacGroup[] = "rbac.authorization.k8s.io";

std::vector<std::string> RuleStrings(const Json& object, const char* field) {
  std::vector<std::string> values;
  const auto it = object.find(field);
  if (it == object.end() || !it->is_array()) return values;
  for (const auto& value : *it) {
    if (value.is_string()) values.push_back(value.get<std::string>());
  }
  return values;
}

bool Has(const std::vector<std::string>& values, const std::string& wanted) {
  return std::find(values.begin(), values.end(), wanted) != values.end();
}

bool HasOrStar(const std::vector<std::string>& values, const std::string& wanted) {
  return Has(values, "*") || Has(values, wanted);
}

// "pods", "pods/eviction", "*" and "*/eviction" as the real authorizer reads them.
bool ResourceMatches(const std::vector<std::string>& resources, const RequestAttributes& request) {
  const std::string combined =
      request.subresource.empty() ? request.resource : request.resource + "/" + request.subresource;
  for (const auto& resource : resources) {
    if (resource == "*" || resource == combined) return true;
    if (!request.subresource.empty() && resource == "*/" + request.subresource) return true;
  }
  return false;
}

// Every object of a built-in RBAC kind, parsed.
std::vector<Json> ListAll(Cluster& cluster, const std::string& plural, const std::string& ns) {
  const auto resource = cluster.Resource(kRbacGroup, "v1", plural);
  std::vector<Json> objects;
  for (const auto& item : cluster.List(*resource, ns, ListOptions{}).items) {
    objects.push_back(item->Parsed());
  }
  return objects;
}

// The first subject of the binding that names the user, if any.
const Json* SubjectFor(const Json& binding, const UserInfo& user, const std::string& binding_ns) {
  const auto subjects = binding.find("subjects");
  if (subjects == binding.end() || !subjects->is_array()) return nullptr;
  for (const auto& subject : *subjects) {
    if (SubjectMatches(subject, user, binding_ns)) return &subject;
  }
  return nullptr;
}

std::string InQuotes(const std::string& text) { return "\"" + text + "\""; }

// "ClusterRoleBinding \"b\" of ClusterRole \"r\" to ServiceAccount \"sa/ns\"", as
// the real authorizer names what allowed a request.
std::string DescribeGrant(const Json& binding, const Json& subject, const std::string& binding_ns) {
  const Json role_ref = binding.value("roleRef", Json::object());
  const std::string name = binding["metadata"].value("name", "");
  std::string text = binding_ns.empty() ? "ClusterRoleBinding " + InQuotes(name)
                                        : "RoleBinding " + InQuotes(name + "/" + binding_ns);
  text += " of " + role_ref.value("kind", "") + " " + InQuotes(role_ref.value("name", ""));
  const std::string kind = subject.value("kind", "");
  std::string subject_name = subject.value("name", "");
  if (kind == "ServiceAccount") {
    const std::string ns = subject.value("namespace", "");
    subject_name += "/" + (ns.empty() ? binding_ns : ns);
  }
  return text + " to " + kind + " " + InQuotes(subject_name);
}

bool NonResourceUrlMatches(const std::vector<std::string>& urls, const std::string& path) {
  for (const auto& url : urls) {
    if (url == "*" || url == path) return true;
    if (!url.empty() && url.back() == '*' &&
        path.rfind(url.substr(0, url.find_last_not_of('*') + 1), 0) == 0)
      return true;
  }
  return false;
}

}  // namespace

UserInfo AdminUser() { return {"kubernetes-admin", "", {kMastersGroup, "system:authenticated"}}; }

std::string ServiceAccountName::User() const { return "system:serviceaccount:" + ns + ":" + name; }

UserInfo ServiceAccountName::Info() const {
  return {User(),
          "",
          {"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}};
}

RequestAttributes RequestAttributes::NonResource(const std::string& verb, const std::string& path) {
  RequestAttributes attributes;
  attributes.verb = verb;
  attributes.non_resource = true;
  attributes.path = path;
  return attributes;
}

bool RuleAllows(const Json& rule, const RequestAttributes& request) {
  if (!rule.is_object()) return false;
  if (!HasOrStar(RuleStrings(rule, "verbs"), request.verb)) return false;
  if (request.non_resource)
    return NonResourceUrlMatches(RuleStrings(rule, "nonResourceURLs"), request.path);
  if (!HasOrStar(RuleStrings(rule, "apiGroups"), request.group)) return false;
  if (!ResourceMatches(RuleStrings(rule, "resources"), request)) return false;
  const auto names = RuleStrings(rule, "resourceNames");
  return names.empty() || (!request.name.empty() && Has(names, request.name));
}

bool SubjectMatches(const Json& subject, const UserInfo& user, const std::string& binding_ns) {
  if (!subject.is_object()) return false;
  const std::string kind = subject.value("kind", "");
  const std::string name = subject.value("name", "");
  if (kind == "ServiceAccount") {
    const std::string ns = subject.value("namespace", binding_ns);
    return !ns.empty() && !name.empty() && user.name == ServiceAccountName{ns, name}.User();
  }
  if (kind == "User") return name == user.name;
  if (kind == "Group") return Has(user.groups, name);
  return false;
}

ApiError ForbiddenFor(const ServiceAccountName& account, const RequestAttributes& request) {
  const std::string group_resource =
      request.group.empty() ? request.resource : request.resource + "." + request.group;
  const std::string resource =
      request.subresource.empty() ? request.resource : request.resource + "/" + request.subresource;
  std::string message = group_resource;
  if (!request.name.empty()) message += " \"" + request.name + "\"";
  message += " is forbidden: User \"" + account.User() + "\" cannot " + request.verb +
             " resource \"" + resource + "\" in API group \"" + request.group + "\"";
  message +=
      request.ns.empty() ? " at the cluster scope" : " in the namespace \"" + request.ns + "\"";
  Json details = {{"kind", request.resource}};
  if (!request.name.empty()) details["name"] = request.name;
  if (!request.group.empty()) details["group"] = request.group;
  return ApiError(403, "Forbidden", message, details);
}

Json Authorizer::RulesOf(const Json& role_ref, const std::string& binding_ns) {
  const std::string kind = role_ref.value("kind", "");
  const std::string name = role_ref.value("name", "");
  const bool cluster_role = kind == "ClusterRole";
  if (!cluster_role && kind != "Role") return Json::array();
  const auto resource =
      cluster_.Resource(kRbacGroup, "v1", cluster_role ? "clusterroles" : "roles");
  Json role;
  try {
    role = cluster_.Get(*resource, cluster_role ? "" : binding_ns, name);
  } catch (const ApiError&) {
    throw ApiError(404, "NotFound",
                   (cluster_role ? "clusterrole" : "role") + std::string(".") + kRbacGroup + " " +
                       InQuotes(name) + " not found");
  }
  const auto rules = role.find("rules");
  return rules == role.end() || !rules->is_array() ? Json::array() : *rules;
}

// The rules of the roles bound to the user, ClusterRoleBindings first, then
// the RoleBindings of `ns` (none when it is empty); a decision stops at the
// first rule that allows. A binding to a missing role grants nothing.
bool Authorizer::AnyRule(const UserInfo& user, const std::string& ns, const RuleVisitor& visit,
                         std::vector<std::string>& errors) {
  const auto any_in = [&](const Json& binding, const std::string& binding_ns) {
    const Json* subject = SubjectFor(binding, user, binding_ns);
    if (!subject) return false;
    Json rules;
    try {
      rules = RulesOf(binding.value("roleRef", Json::object()), binding_ns);
    } catch (const ApiError& missing) {
      errors.push_back(missing.what());
      return false;
    }
    const std::string granted_by = DescribeGrant(binding, *subject, binding_ns);
    return std::any_of(rules.begin(), rules.end(),
                       [&](const Json& rule) { return visit(rule, granted_by); });
  };
  for (const auto& binding : ListAll(cluster_, "clusterrolebindings", "")) {
    if (binding.value("roleRef", Json::object()).value("kind", "") == "ClusterRole" &&
        any_in(binding, ""))
      return true;
  }
  if (ns.empty()) return false;
  for (const auto& binding : ListAll(cluster_, "rolebindings", ns))
    if (any_in(binding, ns)) return true;
  return false;
}

Json Authorizer::Rules(const ServiceAccountName& account, const std::string& ns) {
  Json rules = Json::array();
  std::vector<std::string> ignored;
  AnyRule(
      account.Info(), ns,
      [&](const Json& rule, const std::string&) {
        rules.push_back(rule);
        return false;
      },
      ignored);
  return rules;
}

Decision Authorizer::Decide(const UserInfo& user, const RequestAttributes& request) {
  if (Has(user.groups, kMastersGroup)) return {true, ""};
  std::string allowed_by;
  std::vector<std::string> errors;
  const bool allowed = AnyRule(
      user, request.non_resource ? "" : request.ns,
      [&](const Json& rule, const std::string& granted_by) {
        if (!RuleAllows(rule, request)) return false;
        allowed_by = granted_by;
        return true;
      },
      errors);
  if (allowed) return {true, "RBAC: allowed by " + allowed_by};
  if (errors.empty()) return {false, ""};
  // Several errors read as the real server's aggregate: "[a, b]".
  std::string joined;
  for (const auto& error : errors) joined += (joined.empty() ? "" : ", ") + error;
  return {false, "RBAC: " + (errors.size() > 1 ? "[" + joined + "]" : joined)};
}

bool Authorizer::Allows(const ServiceAccountName& account, const RequestAttributes& request) {
  return Decide(account.Info(), request).allowed;
}

void Authorizer::Check(const ServiceAccountName& account, const RequestAttributes& request) {
  if (Allows(account, request)) return;
  const ApiError error = ForbiddenFor(account, request);
  const uint64_t count = ++denials_;
  std::cerr << "sandbox: RBAC denial " << count << ": " << error.what() << std::endl;
  throw error;
}

}  // namespace gpupool::sandbox
