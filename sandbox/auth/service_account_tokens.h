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
#include <vector>

#include "sandbox/auth/authorization.h"
#include "sandbox/cluster.h"

namespace gpupool::sandbox {

// The prefix of every token the sandbox issues.
inline constexpr char kServiceAccountTokenPrefix[] = "sandbox-sa.";
// The audience of the API server itself: a token's when its request names
// none, and what a TokenReview without audiences checks for.
inline constexpr char kApiAudience[] = "https://kubernetes.default.svc";

// What a token was issued for.
struct IssuedToken {
  ServiceAccountName account;
  std::string uid;  // the account's, when the token was issued
  std::vector<std::string> audiences;
};

class ServiceAccountTokens {
 public:
  explicit ServiceAccountTokens(Cluster& cluster) : cluster_(cluster) {}

  // Answers a TokenRequest for the account (404 when it does not exist).
  Json Issue(const std::string& ns, const std::string& name, const Json& token_request);
  // What a token was issued for, while its account still exists.
  std::optional<IssuedToken> Find(const std::string& token);
  // The account a token was issued for, while that account still exists.
  std::optional<ServiceAccountName> Lookup(const std::string& token);

 private:
  std::string AccountUid(const std::string& ns, const std::string& name);

  Cluster& cluster_;
  std::mutex mutex_;
  std::map<std::string, IssuedToken> issued_;
};

}  // namespace gpupool::sandbox
