#include "sandbox/service_account_tokens.h"

#include "sandbox/object_meta.h"

namespace gpupool::sandbox {

std::string ServiceAccountTokens::AccountUid(const std::string& ns, const std::string& name) {
  const auto resource = cluster_.Resource("", "v1", "serviceaccounts");
  return cluster_.GetStored(*resource, ns, name)->uid;
}

Json ServiceAccountTokens::Issue(const std::string& ns, const std::string& name,
                                 const Json& token_request) {
  const std::string uid = AccountUid(ns, name);  // throws 404 NotFound
  const std::string token = kServiceAccountTokenPrefix + RandomSuffix(40);
  {
    std::lock_guard lock(mutex_);
    issued_[token] = Issued{{ns, name}, uid};
  }
  Json spec =
      token_request.is_object() ? token_request.value("spec", Json::object()) : Json::object();
  if (!spec.is_object()) spec = Json::object();
  const auto requested = spec.find("expirationSeconds");
  const int64_t seconds =
      requested != spec.end() && requested->is_number_integer() ? requested->get<int64_t>() : 3600;
  spec["expirationSeconds"] = seconds;
  if (!spec.contains("audiences")) {
    spec["audiences"] = Json::array({"https://kubernetes.default.svc"});
  }
  if (!spec.contains("boundObjectRef")) spec["boundObjectRef"] = nullptr;
  const auto expiry = std::chrono::system_clock::now() + std::chrono::seconds(seconds);
  return Json{{"kind", "TokenRequest"},
              {"apiVersion", "authentication.k8s.io/v1"},
              {"metadata", {{"name", name}, {"namespace", ns}, {"creationTimestamp", nullptr}}},
              {"spec", spec},
              {"status", {{"token", token}, {"expirationTimestamp", FormatTime(expiry)}}}};
}

std::optional<ServiceAccountName> ServiceAccountTokens::Lookup(const std::string& token) {
  Issued issued;
  {
    std::lock_guard lock(mutex_);
    const auto it = issued_.find(token);
    if (it == issued_.end()) return std::nullopt;
    issued = it->second;
  }
  try {
    if (AccountUid(issued.account.ns, issued.account.name) != issued.uid) return std::nullopt;
  } catch (const ApiError&) {
    return std::nullopt;  // the account is gone
  }
  return issued.account;
}

}  // namespace gpupool::sandbox
