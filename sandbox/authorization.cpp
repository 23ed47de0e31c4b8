#include "sandbox/authorization.h"

#include <algorithm>
#include <iostream>

namespace gpupool::sandbox {
namespace {

const char kRbacGroup[] = "rbac.authorization.k8s.io";

std::vector<std::string> Strings(const Json& object, const char* field) {
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

bool BindsAccount(const Json& binding, const ServiceAccountName& account) {
  const auto subjects = binding.find("subjects");
  if (subjects == binding.end() || !subjects->is_array()) return false;
  return std::any_of(subjects->begin(), subjects->end(),
                     [&](const Json& subject) { return SubjectMatches(subject, account); });
}

}  // namespace

std::string ServiceAccountName::User() const { return "system:serviceaccount:" + ns + ":" + name; }

bool RuleAllows(const Json& rule, const RequestAttributes& request) {
  if (!rule.is_object()) return false;
  if (!HasOrStar(Strings(rule, "verbs"), request.verb)) return false;
  if (!HasOrStar(Strings(rule, "apiGroups"), request.group)) return false;
  if (!ResourceMatches(Strings(rule, "resources"), request)) return false;
  const auto names = Strings(rule, "resourceNames");
  return names.empty() || (!request.name.empty() && Has(names, request.name));
}

bool SubjectMatches(const Json& subject, const ServiceAccountName& account) {
  if (!subject.is_object()) return false;
  const std::string kind = subject.value("kind", "");
  const std::string name = subject.value("name", "");
  if (kind == "ServiceAccount") {
    return name == account.name && subject.value("namespace", "") == account.ns;
  }
  if (kind == "User") return name == account.User();
  if (kind == "Group") {
    return name == "system:serviceaccounts" || name == "system:serviceaccounts:" + account.ns ||
           name == "system:authenticated";
  }
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
  if (kind != "Role" && kind != "ClusterRole") return Json::array();
  const auto resource =
      cluster_.Resource(kRbacGroup, "v1", kind == "Role" ? "roles" : "clusterroles");
  Json role;
  try {
    role = cluster_.Get(*resource, kind == "Role" ? binding_ns : "", role_ref.value("name", ""));
  } catch (const ApiError&) {
    return Json::array();  // a binding to a missing role grants nothing
  }
  const auto rules = role.find("rules");
  return rules == role.end() || !rules->is_array() ? Json::array() : *rules;
}

// The rules of the roles bound to the account, ClusterRoleBindings first, then
// the RoleBindings of `ns` (none when it is empty); a decision stops at the
// first rule that allows.
bool Authorizer::AnyRule(const ServiceAccountName& account, const std::string& ns,
                         const std::function<bool(const Json&)>& visit) {
  const auto any_in = [&](const Json& binding, const std::string& binding_ns) {
    if (!BindsAccount(binding, account)) return false;
    const Json rules = RulesOf(binding.value("roleRef", Json::object()), binding_ns);
    return std::any_of(rules.begin(), rules.end(), [&](const Json& rule) { return visit(rule); });
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
  AnyRule(account, ns, [&](const Json& rule) {
    rules.push_back(rule);
    return false;
  });
  return rules;
}

bool Authorizer::Allows(const ServiceAccountName& account, const RequestAttributes& request) {
  return AnyRule(account, request.ns, [&](const Json& rule) { return RuleAllows(rule, request); });
}

void Authorizer::Check(const ServiceAccountName& account, const RequestAttributes& request) {
  if (Allows(account, request)) return;
  const ApiError error = ForbiddenFor(account, request);
  const uint64_t count = ++denials_;
  std::cerr << "sandbox: RBAC denial " << count << ": " << error.what() << std::endl;
  throw error;
}

}  // namespace gpupool::sandbox
