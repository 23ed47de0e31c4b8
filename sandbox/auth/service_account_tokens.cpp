// Issues TokenRequest tokens and remembers what each was issued for.
#include "sandbox/auth/service_account_tokens.h"

#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {

std::string ServiceAccountTokens::AccountUid(const std::string& ns, const std::string& name) {
  const auto resource = cluster_.Resource("", "v1", "serviceaccounts");
  return cluster_.GetStored(*resource, ns, name)->uid;
}

Json ServiceAccountTokens::Issue(const std::string& ns, const std::string& name,
                                 const Json& token_request) {
  const std::string uid = AccountUid(ns, name);  // throws 404 NotFound
  const std::string token = kServiceAccountTokenPrefix + RandomSuffix(40);
  Json spec =
      token_request.is_object() ? token_request.value("spec", Json::object()) : Json::object();
  if (!spec.is_object()) spec = Json::object();
  const auto requested = spec.find("expirationSeconds");
  const int64_t seconds =
      requested != spec.end() && requested->is_number_integer() ? requested->get<int64_t>() : 3600;
  spec["expirationSeconds"] = seconds;
  if (!spec.contains("audiences") || spec["audiences"].empty()) {
    spec["audiences"] = Json::array({kApiAudience});
  }
  if (!spec.contains("boundObjectRef")) spec["boundObjectRef"] = nullptr;
  IssuedToken issued{{ns, name}, uid, {}};
  for (const auto& audience : spec["audiences"]) {
    if (audience.is_string()) issued.audiences.push_back(audience.get<std::string>());
  }
  {
    std::lock_guard lock(mutex_);
    issued_[token] = std::move(issued);
  }
  const auto expiry = std::chrono::system_clock::now() + std::chrono::seconds(seconds);
  return Json{{"kind", "TokenRequest"},
              {"apiVersion", "authentication.k8s.io/v1"},
              {"metadata", {{"name", name}, {"namespace", ns}, {"creationTimestamp", nullptr}}},
              {"spec", spec},
              {"status", {{"token", token}, {"expirationTimestamp", FormatTime(expiry)}}}};
}

std::optional<IssuedToken> ServiceAccountTokens::Find(const std::string& token) {
  IssuedToken issued;
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
  return issued;
}

std::optional<ServiceAccountName> ServiceAccountTokens::Lookup(const std::string& token) {
  const auto issued = Find(token);
  if (!issued) return std::nullopt;
  return issued->account;
}

}  // namespace gpupool::sandbox
