// The chart's NetworkPolicy (networkPolicy.enabled): ingress to the controller
// pods on the metrics port only, from networkPolicy.metricsFrom when given.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "install_files.h"

namespace gpupool::install::testing {
namespace {

std::vector<YAML::Node> Rendered(const std::string& flags) {
  const auto result =
      Helm(std::string("template gpupool ") + kChart + " --namespace " + kNamespace + " " + flags);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return LoadDocuments(result.output);
}

TEST(NetworkPolicy, NoneByDefault) {
  EXPECT_FALSE(FindObject(LoadManifests(), "NetworkPolicy").IsMap());
}

TEST(NetworkPolicy, AdmitsTheMetricsAndWebhookPortsOfTheControllerPodsOnly) {
  SKIP_WITHOUT_HELM();
  const auto objects = Rendered("--set networkPolicy.enabled=true");
  const YAML::Node policy = FindObject(objects, "NetworkPolicy");
  const YAML::Node deployment = FindObject(objects, "Deployment");
  ASSERT_TRUE(policy.IsMap());
  ASSERT_TRUE(deployment.IsMap());
  const YAML::Node pod = deployment["spec"]["template"];
  for (const auto& label : policy["spec"]["podSelector"]["matchLabels"])
    EXPECT_EQ(pod["metadata"]["labels"][label.first.as<std::string>()].as<std::string>(),
              label.second.as<std::string>());
  ASSERT_EQ(policy["spec"]["policyTypes"].size(), 1u);
  EXPECT_EQ(policy["spec"]["policyTypes"][0].as<std::string>(), "Ingress");
  const YAML::Node rules = policy["spec"]["ingress"];
  ASSERT_EQ(rules.size(), 2u) << "metrics, and the webhook the API server calls";
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const std::string port = i == 0 ? "metrics" : "webhook";
    ASSERT_EQ(rules[i]["ports"].size(), 1u);
    EXPECT_EQ(rules[i]["ports"][0]["port"].as<std::string>(), port);
    EXPECT_FALSE(rules[i]["from"].IsDefined());  // Any source, on that port alone.
    bool named = false;
    for (const auto& container_port : pod["spec"]["containers"][0]["ports"])
      named = named || container_port["name"].as<std::string>() == port;
    EXPECT_TRUE(named) << "the policy names a port the controller container does not have";
  }
  const auto without_webhook =
      Rendered("--set networkPolicy.enabled=true --set webhook.enabled=false");
  EXPECT_EQ(FindObject(without_webhook, "NetworkPolicy")["spec"]["ingress"].size(), 1u);
}

TEST(NetworkPolicy, AdmitsOnlyThePeersMetricsFromNames) {
  SKIP_WITHOUT_HELM();
  const auto objects = Rendered(
      "--set networkPolicy.enabled=true "
      "--set networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.team=monitoring");
  const YAML::Node policy = FindObject(objects, "NetworkPolicy");
  ASSERT_TRUE(policy.IsMap());
  const YAML::Node from = policy["spec"]["ingress"][0]["from"];
  ASSERT_EQ(from.size(), 1u);
  EXPECT_EQ(from[0]["namespaceSelector"]["matchLabels"]["team"].as<std::string>(), "monitoring");
}

}  // namespace
}  // namespace gpupool::install::testing
