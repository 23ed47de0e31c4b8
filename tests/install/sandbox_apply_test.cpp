// `kubectl apply -f manifests/` (kubectl's defaults: server-side strict field
// validation) on a fresh `gpupool sandbox`, then every object read back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <nlohmann/json.hpp>

#include "install_files.h"

namespace gpupool::install::testing {
namespace {

using Json = nlohmann::json;
using sandbox::testing::SandboxProcess;
using sandbox::testing::SourcePath;
using ::testing::HasSubstr;

// "deployment.v1.apps" for apps/v1 Deployment, "serviceaccount" for v1:
// how kubectl names a resource without guessing between groups.
std::string ResourceArgument(const YAML::Node& object) {
  std::string kind = object["kind"].as<std::string>();
  for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string api_version = object["apiVersion"].as<std::string>();
  const auto slash = api_version.find('/');
  if (slash == std::string::npos) return kind;
  return kind + "." + api_version.substr(slash + 1) + "." + api_version.substr(0, slash);
}

std::string Describe(const YAML::Node& object) {
  return object["kind"].as<std::string>() + " " + object["metadata"]["name"].as<std::string>();
}

// Reads `object` back from the sandbox as JSON; empty when kubectl fails.
Json GetBack(const SandboxProcess& sandbox, const YAML::Node& object) {
  std::string arguments =
      "get " + ResourceArgument(object) + " " + object["metadata"]["name"].as<std::string>();
  if (object["metadata"]["namespace"])
    arguments += " -n " + object["metadata"]["namespace"].as<std::string>();
  const auto result = sandbox.Kubectl(arguments + " -o json");
  EXPECT_EQ(result.exit_code, 0) << Describe(object) << ": " << result.output;
  return result.exit_code == 0 ? Json::parse(result.output) : Json();
}

TEST(SandboxApply, AcceptsEveryObjectOfTheManifestsAndServesItBack) {
  SandboxProcess sandbox;
  auto result = sandbox.Kubectl("apply -f " + SourcePath(kManifestsDir));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto objects = LoadManifests();
  ASSERT_GE(objects.size(), 14u);
  for (const auto& object : objects) {
    EXPECT_THAT(result.output,
                HasSubstr("/" + object["metadata"]["name"].as<std::string>() + " created"))
        << Describe(object);
    const Json served = GetBack(sandbox, object);
    EXPECT_EQ(served.value("kind", ""), object["kind"].as<std::string>()) << Describe(object);
  }
  // Applying again changes nothing.
  result = sandbox.Kubectl("apply -f " + SourcePath(kManifestsDir));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, ::testing::Not(HasSubstr(" created")));
  EXPECT_THAT(result.output, ::testing::Not(HasSubstr(" configured")));
}

TEST(SandboxApply, KeepsTheControllersSecuritySettingsAndProbes) {
  SandboxProcess sandbox;
  auto result = sandbox.Kubectl("apply -f " + SourcePath(kManifestsDir));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const YAML::Node deployment = FindObject(LoadManifests(), "Deployment");
  ASSERT_TRUE(deployment.IsMap());
  const Json pod = GetBack(sandbox, deployment)["spec"]["template"]["spec"];
  ASSERT_TRUE(pod.is_object());
  EXPECT_EQ(pod["securityContext"]["runAsNonRoot"], true);
  EXPECT_EQ(pod["securityContext"]["runAsUser"], 65532);
  EXPECT_EQ(pod["securityContext"]["seccompProfile"]["type"], "RuntimeDefault");
  const Json& container = pod["containers"][0];
  EXPECT_EQ(container["securityContext"]["readOnlyRootFilesystem"], true);
  EXPECT_EQ(container["securityContext"]["allowPrivilegeEscalation"], false);
  EXPECT_EQ(container["securityContext"]["capabilities"]["drop"], Json::array({"ALL"}));
  EXPECT_EQ(container["ports"][0]["name"], "metrics");
  EXPECT_EQ(container["ports"][1]["name"], "health");
  EXPECT_EQ(container["ports"][1]["containerPort"], 8081);
  // The probes on a listener of their own, apart from the metrics port.
  EXPECT_EQ(container["livenessProbe"]["httpGet"]["path"], "/healthz");
  EXPECT_EQ(container["livenessProbe"]["httpGet"]["port"], "health");
  EXPECT_EQ(container["readinessProbe"]["httpGet"]["path"], "/readyz");
  EXPECT_EQ(container["readinessProbe"]["httpGet"]["port"], "health");
  EXPECT_TRUE(container["resources"]["requests"].contains("memory"));
  EXPECT_TRUE(container["resources"]["limits"].contains("memory"));
}

TEST(SandboxApply, AcceptsTheDashboardConfigMap) {
  SKIP_WITHOUT_HELM();
  SandboxProcess sandbox;
  const auto rendered = Helm(std::string("template gpupool ") + kChart + " --namespace " +
                             kNamespace + " --set dashboard.enabled=true");
  ASSERT_EQ(rendered.exit_code, 0) << rendered.output;
  auto result = sandbox.Kubectl(std::string("create namespace ") + kNamespace);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  result = sandbox.Kubectl("apply -f " + sandbox.WriteFile("rendered.yaml", rendered.output));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("configmap/gpupool-dashboard created"));
}

}  // namespace
}  // namespace gpupool::install::testing
