// Tokens of ServiceAccounts (--authorize-service-accounts), issued through
// the TokenRequest API (POST .../serviceaccounts/{name}/token, what
// `kubectl create token` calls). A token is an opaque random string the
// sandbox remembers, not a signed JWT; it is bound to the account's uid, so
// deleting the account revokes it, and it does not expire.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "sandbox/authorization.h"
#include "sandbox/cluster.h"

namespace gpupool::sandbox {

// The prefix of every token the sandbox issues.
inline constexpr char kServiceAccountTokenPrefix[] = "sandbox-sa.";

class ServiceAccountTokens {
 public:
  explicit ServiceAccountTokens(Cluster& cluster) : cluster_(cluster) {}

  // Answers a TokenRequest for the account (404 when it does not exist).
  Json Issue(const std::string& ns, const std::string& name, const Json& token_request);
  // The account a token was issued for, while that account still exists.
  std::optional<ServiceAccountName> Lookup(const std::string& token);

 private:
  struct Issued {
    ServiceAccountName account;
    std::string uid;
  };
  std::string AccountUid(const std::string& ns, const std::string& name);

  Cluster& cluster_;
  std::mutex mutex_;
  std::map<std::string, Issued> issued_;
};

}  // namespace gpupool::sandbox
