// The answers of the reviews an API server makes for others: TokenReview (whose
// token is this?) and SubjectAccessReview (may this user do that?), as a real
// kube-apiserver words them, and the checks of an access review's spec that
// SelfSubjectAccessReview shares. No HTTP here: http_reviews.cpp serves them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sandbox/auth/authorization.h"

namespace gpupool::sandbox {

// The kind the real server names in an access review's 422: its kind is
// empty once decoded, so only the group is left.
inline constexpr char kAccessReviewKind[] = ".authorization.k8s.io";

// 422 Invalid, naming the field, unless exactly one of resourceAttributes and
// nonResourceAttributes is set and, where `names_subject` (a
// SubjectAccessReview), a user or a group is.
void ValidateAccessReviewSpec(const Json& spec, bool names_subject);
// The request a valid spec asks about.
RequestAttributes ReviewedRequest(const Json& spec);
// The user a SubjectAccessReview asks about: spec.user, spec.uid and
// spec.groups, and no other group (the review's caller says which it is in).
UserInfo ReviewedUser(const Json& spec);
// {"allowed": ..., "reason": ...}, the reason left out when empty.
Json AccessReviewStatus(const Decision& decision);

// Whom a token authenticates, and for which audiences.
struct TokenHolder {
  UserInfo user;
  std::vector<std::string> audiences;
  // A static token (the admin's) has no audiences of its own: presented to
  // others than the API server it reads as unknown.
  bool static_token = false;
};

// 400 BadRequest when spec.token is missing or empty; otherwise the token.
std::string ReviewedToken(const Json& spec);
// The status of a TokenReview: the holder's user and the audiences both the
// token and the review name (the API server's own when the review names none),
// or, for an unknown token (nullopt) or one meant for other audiences, an
// empty user and the error the real server gives.
Json TokenReviewStatus(const std::optional<TokenHolder>& holder, const Json& spec);
// {"username": ..., "uid": ... (when known), "groups": [...]}.
Json UserInfoJson(const UserInfo& user);

}  // namespace gpupool::sandbox
