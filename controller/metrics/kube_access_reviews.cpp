// TokenReview (authentication.k8s.io/v1) and SubjectAccessReview
// (authorization.k8s.io/v1) as the metrics listener asks them: the controller's
// ServiceAccount needs `create` on both (the chart grants it with secure metrics).
#include "gpupool/kube/client.h"
#include "gpupool/metrics/token_access_review.h"

namespace gpupool::metrics {
namespace {

constexpr char kTokenReviews[] = "/apis/authentication.k8s.io/v1/tokenreviews";
constexpr char kSubjectAccessReviews[] = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

class KubeReviews : public AccessReviews {
 public:
  explicit KubeReviews(std::unique_ptr<kube::Client> client) : client_(std::move(client)) {}

  ReviewedUser Authenticate(const std::string& token) override {
    const kube::Json review = {{"apiVersion", "authentication.k8s.io/v1"},
                               {"kind", "TokenReview"},
                               {"spec", {{"token", token}}}};
    const kube::Json status = Ask(kTokenReviews, review).value("status", kube::Json::object());
    ReviewedUser user;
    user.authenticated = status.value("authenticated", false);
    const kube::Json info = status.value("user", kube::Json::object());
    user.username = info.value("username", "");
    user.uid = info.value("uid", "");
    user.groups = info.value("groups", std::vector<std::string>());
    return user;
  }

  bool MayAccess(const ReviewedUser& user, const std::string& verb,
                 const std::string& path) override {
    kube::Json spec = {{"user", user.username},
                       {"groups", user.groups},
                       {"nonResourceAttributes", {{"path", path}, {"verb", verb}}}};
    if (!user.uid.empty()) spec["uid"] = user.uid;
    const kube::Json review = {
        {"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"}, {"spec", spec}};
    return Ask(kSubjectAccessReviews, review)
        .value("status", kube::Json::object())
        .value("allowed", false);
  }

 private:
  // A review stores nothing: asking again after an ambiguous failure is safe.
  kube::Json Ask(const char* path, const kube::Json& review) {
    return client_->Request("POST", path, &review, "application/json", kube::RepeatSafety::kSafe);
  }

  void Cancel() override { client_->Cancel(); }

  std::unique_ptr<kube::Client> client_;
};

}  // namespace

std::unique_ptr<AccessReviews> KubeAccessReviews(std::unique_ptr<kube::Client> client) {
  return std::make_unique<KubeReviews>(std::move(client));
}

}  // namespace gpupool::metrics
