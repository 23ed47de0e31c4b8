// The controller's RBAC in manifests/ (rendered from the chart): no wildcard,
// every call the controller makes is granted, and nothing else is.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "install_files.h"

namespace gpupool::install::testing {
namespace {

struct Permission {
  std::string group, resource, verb;
  std::string source;  // the code that makes the call
  auto Key() const { return std::tie(group, resource, verb); }
};

// Every API call of `gpupool controller`, by source. Informers list and
// watch; nothing reads single objects except the leader elector.
const std::vector<Permission>& ClusterCalls() {
  static const std::vector<Permission> calls = {
      {"gpupool.dev", "queues", "list", "operator/controller.cpp informer"},
      {"gpupool.dev", "queues", "watch", "operator/controller.cpp informer"},
      {"gpupool.dev", "projects", "list", "operator/controller.cpp informer"},
      {"gpupool.dev", "projects", "watch", "operator/controller.cpp informer"},
      {"gpupool.dev", "departments", "list", "operator/controller.cpp informer"},
      {"gpupool.dev", "departments", "watch", "operator/controller.cpp informer"},
      {"gpupool.dev", "trainingjobs", "list", "operator/controller.cpp informer"},
      {"gpupool.dev", "trainingjobs", "watch", "operator/controller.cpp informer"},
      {"gpupool.dev", "queues/status", "patch", "operator/writer.cpp WriteStatus"},
      {"gpupool.dev", "projects/status", "patch", "operator/writer.cpp WriteStatus"},
      {"gpupool.dev", "departments/status", "patch", "operator/writer.cpp WriteStatus"},
      {"gpupool.dev", "trainingjobs/status", "patch",
       "operator/writer.cpp WriteStatus, RejectTemplate"},
      {"", "nodes", "list", "operator/controller.cpp informer"},
      {"", "nodes", "watch", "operator/controller.cpp informer"},
      {"", "pods", "list", "operator/controller.cpp informer"},
      {"", "pods", "watch", "operator/controller.cpp informer"},
      {"", "pods", "create", "operator/writer.cpp CreatePod, CreateReservation"},
      {"", "pods", "patch", "operator/writer.cpp release (JSON patch), PatchPod (idle flag)"},
      {"", "pods", "delete", "operator/writer.cpp DeletePod (also of reservation pods)"},
      {"", "pods/eviction", "create", "operator/writer.cpp DeletePod, kube/client.cpp Evict"},
      {"", "pods/status", "patch", "operator/writer.cpp PatchPod (a pod group's condition)"},
      {"batch", "jobs", "list", "operator/controller.cpp owner informers"},
      {"batch", "jobs", "watch", "operator/controller.cpp owner informers"},
      {"jobset.x-k8s.io", "jobsets", "list", "operator/controller.cpp owner informers"},
      {"jobset.x-k8s.io", "jobsets", "watch", "operator/controller.cpp owner informers"},
      {"kubeflow.org", "pytorchjobs", "list", "operator/controller.cpp owner informers"},
      {"kubeflow.org", "pytorchjobs", "watch", "operator/controller.cpp owner informers"},
      {"kubeflow.org", "mpijobs", "list", "operator/controller.cpp owner informers"},
      {"kubeflow.org", "mpijobs", "watch", "operator/controller.cpp owner informers"},
      {"", "services", "list", "operator/controller.cpp gang Service informer"},
      {"", "services", "watch", "operator/controller.cpp gang Service informer"},
      {"", "services", "create", "operator/writer.cpp CreateService"},
      {"events.k8s.io", "events", "create", "kube/event_recorder.cpp Create"},
      {"events.k8s.io", "events", "patch", "kube/event_recorder.cpp Aggregate"},
      // With the webhook (the default) keeping its own certificates.
      {"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "get",
       "webhook/certificates.cpp WriteCaBundle"},
      {"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "update",
       "webhook/certificates.cpp WriteCaBundle"},
      // With metrics.secure (the default): who a scraper's token is, and what it may.
      {"authentication.k8s.io", "tokenreviews", "create",
       "metrics/kube_access_reviews.cpp Authenticate"},
      {"authorization.k8s.io", "subjectaccessreviews", "create",
       "metrics/kube_access_reviews.cpp MayAccess"},
  };
  return calls;
}

// Only with priorityClasses.create=false: otherwise the chart creates the
// classes and the controller, started with --skip-priority-classes, never asks.
const Permission kPriorityClassCreate = {"scheduling.k8s.io", "priorityclasses", "create",
                                         "operator/priority_classes.cpp EnsurePriorityClasses"};

// Granted without a call: pods and gang Services carry a blockOwnerDeletion
// owner reference to their TrainingJob (operator/pod_template.cpp), which the
// OwnerReferencesPermissionEnforcement admission plugin checks as this.
const std::vector<Permission>& ClusterExtras() {
  static const std::vector<Permission> extras = {
      {"gpupool.dev", "trainingjobs/finalizers", "update", "operator/pod_template.cpp"}};
  return extras;
}

// The leader elector, in the release namespace only.
const std::vector<Permission>& LeaseCalls() {
  static const std::vector<Permission> calls = {
      {"coordination.k8s.io", "leases", "get", "kube/leader_election.cpp TryAcquireOrRenew"},
      {"coordination.k8s.io", "leases", "create", "kube/leader_election.cpp TryAcquireOrRenew"},
      {"coordination.k8s.io", "leases", "update",
       "kube/leader_election.cpp TryAcquireOrRenew, Release"},
  };
  return calls;
}

std::vector<std::string> Strings(const YAML::Node& list) {
  std::vector<std::string> values;
  if (list.IsDefined() && list.IsSequence()) {
    for (const auto& item : list) values.push_back(item.as<std::string>());
  }
  return values;
}

using Grant = std::tuple<std::string, std::string, std::string>;

// Every (group, resource, verb) the role's rules grant.
std::set<Grant> Grants(const YAML::Node& role) {
  std::set<Grant> grants;
  for (const auto& rule : role["rules"]) {
    for (const auto& group : Strings(rule["apiGroups"]))
      for (const auto& resource : Strings(rule["resources"]))
        for (const auto& verb : Strings(rule["verbs"])) grants.insert({group, resource, verb});
  }
  return grants;
}

class Rbac : public ::testing::Test {
 protected:
  void SetUp() override {
    objects_ = LoadManifests();
    cluster_role_ = FindObject(objects_, "ClusterRole");
    lease_role_ = FindObject(objects_, "Role", "gpupool-leader-election");
    webhook_role_ = FindObject(objects_, "Role", "gpupool-webhook-certificates");
    ASSERT_TRUE(cluster_role_.IsMap()) << "no ClusterRole in manifests/";
    ASSERT_TRUE(lease_role_.IsMap()) << "no leader-election Role in manifests/";
  }
  static constexpr char kReservations[] = "gpupool-system-reservations";
  std::vector<YAML::Node> objects_;
  YAML::Node cluster_role_, lease_role_, webhook_role_;
};

TEST_F(Rbac, HasNoWildcard) {
  for (const auto& role : {cluster_role_, lease_role_, webhook_role_}) {
    for (const auto& rule : role["rules"]) {
      for (const char* field :
           {"apiGroups", "resources", "verbs", "resourceNames", "nonResourceURLs"}) {
        for (const auto& value : Strings(rule[field])) {
          EXPECT_EQ(value.find('*'), std::string::npos)
              << role["kind"].as<std::string>() << " " << field << ": " << value;
        }
      }
    }
  }
}

TEST_F(Rbac, GrantsEveryCallTheControllerMakes) {
  const auto cluster = Grants(cluster_role_);
  for (const auto& call : ClusterCalls()) {
    EXPECT_TRUE(cluster.count({call.group, call.resource, call.verb}))
        << "ClusterRole lacks " << call.verb << " " << call.resource << " (" << call.group
        << "), called by " << call.source;
  }
  const auto lease = Grants(lease_role_);
  for (const auto& call : LeaseCalls()) {
    EXPECT_TRUE(lease.count({call.group, call.resource, call.verb}))
        << "Role lacks " << call.verb << " " << call.resource << ", called by " << call.source;
  }
}

TEST_F(Rbac, GrantsNothingTheControllerDoesNotCall) {
  std::set<Grant> allowed;
  for (const auto* table : {&ClusterCalls(), &ClusterExtras()})
    for (const auto& permission : *table)
      allowed.insert({permission.group, permission.resource, permission.verb});
  for (const auto& [group, resource, verb] : Grants(cluster_role_)) {
    EXPECT_TRUE(allowed.count({group, resource, verb}))
        << "ClusterRole grants " << verb << " " << resource << " (" << group
        << ") that no code calls";
  }
  std::set<Grant> lease_allowed;
  for (const auto& call : LeaseCalls())
    lease_allowed.insert({call.group, call.resource, call.verb});
  EXPECT_EQ(Grants(lease_role_), lease_allowed);
}

bool HasArg(const YAML::Node& deployment, const std::string& arg) {
  const auto args = Strings(deployment["spec"]["template"]["spec"]["containers"][0]["args"]);
  return std::find(args.begin(), args.end(), arg) != args.end();
}

// The chart creates the PriorityClasses by default: the controller is told so
// and may not create them. Without them, it creates them and may.
TEST_F(Rbac, PriorityClassCreateIsGrantedOnlyWhenTheChartDoesNotCreateThem) {
  const Grant create{kPriorityClassCreate.group, kPriorityClassCreate.resource,
                     kPriorityClassCreate.verb};
  EXPECT_EQ(Grants(cluster_role_).count(create), 0u);
  EXPECT_TRUE(HasArg(FindObject(objects_, "Deployment"), "--skip-priority-classes"));
  size_t classes = 0;
  for (const auto& object : objects_)
    classes += object["kind"].as<std::string>("") == "PriorityClass";
  EXPECT_EQ(classes, 3u);

  SKIP_WITHOUT_HELM();
  const auto rendered = Helm(std::string("template gpupool ") + kChart + " --namespace " +
                             kNamespace + " --set priorityClasses.create=false");
  ASSERT_EQ(rendered.exit_code, 0) << rendered.output;
  const auto objects = LoadDocuments(rendered.output);
  EXPECT_EQ(Grants(FindObject(objects, "ClusterRole")).count(create), 1u);
  EXPECT_FALSE(HasArg(FindObject(objects, "Deployment"), "--skip-priority-classes"));
  EXPECT_FALSE(FindObject(objects, "PriorityClass").IsMap());
}

// Secure metrics by default: the controller serves /metrics over HTTPS to the
// readers of one ClusterRole, which grants that and nothing else; without them
// it neither reviews tokens nor may.
TEST_F(Rbac, SecureMetricsByDefaultWithAReaderRoleThatGrantsOnlyGetMetrics) {
  EXPECT_TRUE(HasArg(FindObject(objects_, "Deployment"), "--metrics-secure"));
  const auto reader = FindObject(objects_, "ClusterRole", "gpupool-controller-metrics-reader");
  ASSERT_TRUE(reader.IsMap()) << "no metrics-reader ClusterRole in manifests/";
  ASSERT_EQ(reader["rules"].size(), 1u);
  EXPECT_EQ(Strings(reader["rules"][0]["nonResourceURLs"]), std::vector<std::string>{"/metrics"});
  EXPECT_EQ(Strings(reader["rules"][0]["verbs"]), std::vector<std::string>{"get"});
  EXPECT_FALSE(reader["rules"][0]["resources"].IsDefined());

  SKIP_WITHOUT_HELM();
  const auto rendered = Helm(std::string("template gpupool ") + kChart + " --namespace " +
                             kNamespace + " --set metrics.secure=false");
  ASSERT_EQ(rendered.exit_code, 0) << rendered.output;
  const auto objects = LoadDocuments(rendered.output);
  const auto grants = Grants(FindObject(objects, "ClusterRole"));
  EXPECT_EQ(grants.count({"authentication.k8s.io", "tokenreviews", "create"}), 0u);
  EXPECT_EQ(grants.count({"authorization.k8s.io", "subjectaccessreviews", "create"}), 0u);
  EXPECT_FALSE(HasArg(FindObject(objects, "Deployment"), "--metrics-secure"));
  EXPECT_FALSE(FindObject(objects, "ClusterRole", "gpupool-controller-metrics-reader").IsMap());
}

// Reservation pods report their device through the kubelet (their init
// container's termination message) and mount no token: the chart gives them no
// identity, and their namespace holds nothing of the chart but itself and
// admits only pods of the restricted Pod Security Standard.
TEST_F(Rbac, ReservationPodsHaveNoIdentityAndANamespaceOfTheirOwn) {
  const YAML::Node ns = FindObject(objects_, "Namespace", kReservations);
  ASSERT_TRUE(ns.IsMap());
  EXPECT_EQ(ns["metadata"]["labels"]["pod-security.kubernetes.io/enforce"].as<std::string>(),
            "restricted");
  for (const auto& object : objects_) {
    const auto meta = object["metadata"];
    EXPECT_FALSE(meta["namespace"].IsDefined() &&
                 meta["namespace"].as<std::string>() == kReservations)
        << object["kind"].as<std::string>() << " " << meta["name"].as<std::string>();
    EXPECT_NE(object["kind"].as<std::string>(), "ValidatingAdmissionPolicy");
  }
  const YAML::Node deployment = FindObject(objects_, "Deployment");
  ASSERT_TRUE(deployment.IsMap());
  const auto args = Strings(deployment["spec"]["template"]["spec"]["containers"][0]["args"]);
  auto it = std::find(args.begin(), args.end(), "--reservation-namespace");
  ASSERT_NE(it, args.end());
  ASSERT_NE(it + 1, args.end());
  EXPECT_EQ(*(it + 1), kReservations);
}

TEST_F(Rbac, LimitsLeaseReadsAndUpdatesToTheControllersLease) {
  const YAML::Node deployment = FindObject(objects_, "Deployment");
  ASSERT_TRUE(deployment.IsMap());
  const auto args = Strings(deployment["spec"]["template"]["spec"]["containers"][0]["args"]);
  auto flag = std::find(args.begin(), args.end(), "--leader-elect-name");
  ASSERT_NE(flag, args.end());
  ASSERT_NE(flag + 1, args.end());
  for (const auto& rule : lease_role_["rules"]) {
    const auto verbs = Strings(rule["verbs"]);
    if (verbs == std::vector<std::string>{"create"}) continue;  // RBAC cannot name a create
    EXPECT_EQ(Strings(rule["resourceNames"]), std::vector<std::string>{*(flag + 1)});
  }
}

// The webhook's Secret, in the release namespace only.
const std::vector<Permission>& WebhookSecretCalls() {
  static const std::vector<Permission> calls = {
      {"", "secrets", "get", "webhook/certificates.cpp PairInSecret"},
      {"", "secrets", "create", "webhook/certificates.cpp PairInSecret"},
      {"", "secrets", "update", "webhook/certificates.cpp PairInSecret"},
  };
  return calls;
}

// The value after `flag` in the controller's arguments; "" without it.
std::string ArgAfter(const YAML::Node& deployment, const std::string& flag) {
  const auto args = Strings(deployment["spec"]["template"]["spec"]["containers"][0]["args"]);
  const auto it = std::find(args.begin(), args.end(), flag);
  return it == args.end() || it + 1 == args.end() ? "" : *(it + 1);
}

// Every rule but a create (which RBAC cannot name) is held to `name`.
void ExpectOnlyNamed(const YAML::Node& role, const std::string& resource, const std::string& name) {
  for (const auto& rule : role["rules"]) {
    if (Strings(rule["resources"]) != std::vector<std::string>{resource}) continue;
    if (Strings(rule["verbs"]) == std::vector<std::string>{"create"}) continue;
    EXPECT_EQ(Strings(rule["resourceNames"]), std::vector<std::string>{name}) << resource;
  }
}

TEST_F(Rbac, TheWebhookReachesOnlyItsOwnSecretAndConfiguration) {
  const YAML::Node deployment = FindObject(objects_, "Deployment");
  const YAML::Node& role = webhook_role_;
  ASSERT_TRUE(role.IsMap()) << "no webhook Role in manifests/";
  std::set<Grant> expected;
  for (const auto& call : WebhookSecretCalls())
    expected.insert({call.group, call.resource, call.verb});
  EXPECT_EQ(Grants(role), expected);
  const std::string secret = ArgAfter(deployment, "--webhook-secret");
  EXPECT_EQ(secret, "gpupool-webhook-tls");
  ExpectOnlyNamed(role, "secrets", secret);
  const std::string configuration = ArgAfter(deployment, "--webhook-configuration");
  EXPECT_TRUE(FindObject(objects_, "MutatingWebhookConfiguration", configuration).IsMap())
      << configuration;
  ExpectOnlyNamed(cluster_role_, "mutatingwebhookconfigurations", configuration);
  EXPECT_EQ(ArgAfter(deployment, "--webhook-record-writer"),
            "system:serviceaccount:" + std::string(kNamespace) + ":gpupool-controller");

  SKIP_WITHOUT_HELM();
  const auto rendered = Helm(std::string("template gpupool ") + kChart + " --namespace " +
                             kNamespace + " --set webhook.certManager.enabled=true");
  ASSERT_EQ(rendered.exit_code, 0) << rendered.output;
  const auto objects = LoadDocuments(rendered.output);
  EXPECT_FALSE(FindObject(objects, "Role", "gpupool-webhook-certificates").IsMap());
  EXPECT_EQ(Grants(FindObject(objects, "ClusterRole"))
                .count({"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "update"}),
            0u);
  EXPECT_EQ(ArgAfter(FindObject(objects, "Deployment"), "--webhook-cert-dir"),
            "/etc/gpupool/webhook-certs");
  EXPECT_TRUE(FindObject(objects, "Certificate").IsMap());
}

TEST_F(Rbac, BindsEveryRoleToTheControllersServiceAccountOnly) {
  const YAML::Node account = FindObject(objects_, "ServiceAccount");
  const YAML::Node deployment = FindObject(objects_, "Deployment");
  ASSERT_TRUE(account.IsMap());
  ASSERT_TRUE(deployment.IsMap());
  const auto name = account["metadata"]["name"].as<std::string>();
  EXPECT_EQ(deployment["spec"]["template"]["spec"]["serviceAccountName"].as<std::string>(), name);
  for (const auto& [binding_kind, role] :
       {std::pair{"ClusterRoleBinding", cluster_role_}, std::pair{"RoleBinding", lease_role_},
        std::pair{"RoleBinding", webhook_role_}}) {
    const YAML::Node binding =
        FindObject(objects_, binding_kind, role["metadata"]["name"].as<std::string>());
    ASSERT_TRUE(binding.IsMap()) << binding_kind;
    EXPECT_EQ(binding["roleRef"]["kind"].as<std::string>(), role["kind"].as<std::string>());
    EXPECT_EQ(binding["roleRef"]["name"].as<std::string>(),
              role["metadata"]["name"].as<std::string>());
    ASSERT_EQ(binding["subjects"].size(), 1u) << binding_kind;
    EXPECT_EQ(binding["subjects"][0]["kind"].as<std::string>(), "ServiceAccount");
    EXPECT_EQ(binding["subjects"][0]["name"].as<std::string>(), name);
    EXPECT_EQ(binding["subjects"][0]["namespace"].as<std::string>(), kNamespace);
  }
}

}  // namespace
}  // namespace gpupool::install::testing
