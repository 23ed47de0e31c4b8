// Deployments as a real server takes them: wrong JSON types are a 400 naming
// the field, defaults are filled in, and invalid specs are a 422 naming each
// field, with nothing stored.
#include "sandbox/rules/deployment_rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fidelity_util.h"
#include "sandbox/api_error.h"

namespace gpupool::sandbox::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kDeployments = "/apis/apps/v1/namespaces/default/deployments";

Json WebDeployment(const std::string& name = "web") {
  Json deployment = Json::parse(R"({"apiVersion": "apps/v1", "kind": "Deployment",
    "spec": {"selector": {"matchLabels": {"app": "web"}},
             "template": {"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})");
  deployment["metadata"] = {{"name", name}};
  return deployment;
}

Json Defaulted(Json deployment) {
  CheckDeploymentTypes(deployment);
  DefaultDeployment(deployment);
  return deployment;
}

std::vector<std::string> Fields(const json::FieldErrors& errors) {
  std::vector<std::string> fields;
  for (const auto& error : errors) fields.push_back(error.path);
  return fields;
}

// The field named by the decoding error `deployment` raises, or "" if none.
std::string DecodeError(const Json& deployment) {
  try {
    CheckDeploymentTypes(deployment);
  } catch (const ApiError& error) {
    return error.what();
  }
  return "";
}

TEST(DeploymentRules, DefaultsAreThoseOfAppsV1) {
  const Json deployment = Defaulted(WebDeployment());
  const Json& spec = deployment["spec"];
  EXPECT_EQ(spec["replicas"], 1);
  EXPECT_EQ(spec["revisionHistoryLimit"], 10);
  EXPECT_EQ(spec["progressDeadlineSeconds"], 600);
  EXPECT_EQ(spec["strategy"], Json::parse(R"({"type": "RollingUpdate",
            "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})"));
  EXPECT_EQ(spec["template"]["spec"]["restartPolicy"], "Always");
  EXPECT_EQ(spec["template"]["spec"]["containers"][0]["imagePullPolicy"], "IfNotPresent");
  EXPECT_TRUE(ValidateDeployment(deployment, nullptr).empty());

  Json recreate = WebDeployment();
  recreate["spec"]["strategy"] = {{"type", "Recreate"}};
  recreate["spec"]["replicas"] = nullptr;  // null decodes as left out
  recreate = Defaulted(recreate);
  EXPECT_EQ(recreate["spec"]["strategy"], Json({{"type", "Recreate"}}));
  EXPECT_EQ(recreate["spec"]["replicas"], 1);
  EXPECT_TRUE(ValidateDeployment(recreate, nullptr).empty());
}

TEST(DeploymentRules, WrongJsonTypesAreDecodingErrorsNamingTheField) {
  const std::vector<std::pair<Json::json_pointer, Json>> cases = {
      {Json::json_pointer("/spec/strategy"), "fast"},
      {Json::json_pointer("/spec/replicas"), "3"},
      {Json::json_pointer("/spec/paused"), 1},
      {Json::json_pointer("/spec/selector/matchLabels"), Json::array()},
      {Json::json_pointer("/spec/strategy/rollingUpdate/maxSurge"), true},
      {Json::json_pointer("/spec/template/spec/containers"), Json::object()},
      {Json::json_pointer("/spec/template/spec/restartPolicy"), 7},
      {Json::json_pointer("/spec"), Json::array()},
  };
  for (const auto& [pointer, value] : cases) {
    Json deployment = WebDeployment();
    deployment[pointer] = value;
    std::string path = pointer.to_string().substr(1);
    std::replace(path.begin(), path.end(), '/', '.');
    EXPECT_THAT(DecodeError(deployment), HasSubstr("Go struct field " + path + " of type"))
        << pointer.to_string();
  }
  EXPECT_EQ(DecodeError(WebDeployment()), "");
}

TEST(DeploymentRules, InvalidSpecsNameEachField) {
  Json deployment = WebDeployment();
  deployment["spec"]["replicas"] = -1;
  deployment["spec"]["template"]["metadata"]["labels"] = {{"app", "other"}};
  deployment["spec"]["template"]["spec"]["containers"] = Json::array();
  deployment["spec"]["template"]["spec"]["restartPolicy"] = "Never";
  deployment["spec"]["strategy"] = {{"type", "Recreate"}, {"rollingUpdate", Json::object()}};
  EXPECT_THAT(
      Fields(ValidateDeployment(Defaulted(deployment), nullptr)),
      ElementsAre("spec.replicas", "spec.template.metadata.labels", "spec.template.spec.containers",
                  "spec.template.spec.restartPolicy", "spec.strategy.rollingUpdate"));

  Json unselected = WebDeployment();
  unselected["spec"].erase("selector");
  EXPECT_THAT(Fields(ValidateDeployment(Defaulted(unselected), nullptr)),
              ElementsAre("spec.selector"));
  unselected["spec"]["selector"] = Json::object();
  EXPECT_THAT(ValidateDeployment(Defaulted(unselected), nullptr).at(0).message,
              HasSubstr("empty selector is invalid"));

  Json expressions = WebDeployment();
  expressions["spec"]["selector"]["matchExpressions"] = Json::parse(
      R"([{"key": "app", "operator": "Near"}, {"key": "", "operator": "Exists"},
          {"key": "tier", "operator": "In"}, {"key": "x", "operator": "Exists", "values": ["a"]},
          "not a term"])");
  EXPECT_THAT(
      Fields(ValidateDeployment(Defaulted(expressions), nullptr)),
      ElementsAre(
          "spec.selector.matchExpressions[0].operator", "spec.selector.matchExpressions[1].key",
          "spec.selector.matchExpressions[2].values", "spec.selector.matchExpressions[3].values",
          "spec.selector.matchExpressions[4].key", "spec.selector.matchExpressions[4].operator"));

  Json stuck = WebDeployment();
  stuck["spec"]["strategy"]["rollingUpdate"] = {{"maxUnavailable", 0}, {"maxSurge", "0%"}};
  stuck["spec"]["minReadySeconds"] = 700;
  EXPECT_THAT(
      Fields(ValidateDeployment(Defaulted(stuck), nullptr)),
      ElementsAre("spec.progressDeadlineSeconds", "spec.strategy.rollingUpdate.maxUnavailable"));
  stuck["spec"]["strategy"]["rollingUpdate"] = {{"maxUnavailable", "a lot"}};
  stuck["spec"].erase("minReadySeconds");
  EXPECT_THAT(Fields(ValidateDeployment(Defaulted(stuck), nullptr)),
              ElementsAre("spec.strategy.rollingUpdate.maxUnavailable"));
}

TEST(DeploymentRules, TheSelectorCannotChange) {
  const Json old = Defaulted(WebDeployment());
  Json changed = old;
  changed["spec"]["selector"]["matchLabels"]["tier"] = "front";
  changed["spec"]["template"]["metadata"]["labels"]["tier"] = "front";
  const auto errors = ValidateDeployment(changed, &old);
  ASSERT_THAT(Fields(errors), ElementsAre("spec.selector"));
  EXPECT_THAT(errors[0].message, HasSubstr("field is immutable"));
  Json scaled = old;
  scaled["spec"]["replicas"] = 3;
  EXPECT_TRUE(ValidateDeployment(scaled, &old).empty());
}

TEST(DeploymentRules, TheServerRefusesBadDeploymentsAndStoresNone) {
  SandboxProcess sandbox({"--plain-http"});
  auto client = sandbox.Http();
  Json bad_type = WebDeployment("typed");
  bad_type["spec"]["strategy"] = "fast";
  Reply reply = Send(*client, "POST", kDeployments, bad_type);
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("spec.strategy"));
  Json mismatched = WebDeployment("mismatched");
  mismatched["spec"]["template"]["metadata"]["labels"]["app"] = "db";
  reply = Send(*client, "POST", kDeployments, mismatched);
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_THAT(CauseFields(reply.json), ElementsAre("spec.template.metadata.labels"));

  reply = Send(*client, "POST", kDeployments, WebDeployment());
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_EQ(reply.json["spec"]["revisionHistoryLimit"], 10);
  reply = SendRaw(*client, "PATCH", kDeployments + "/web",
                  R"({"spec": {"selector": {"matchLabels": {"app": "db"}}}})",
                  "application/merge-patch+json");
  EXPECT_EQ(reply.status, 422) << reply.body;
  reply = SendRaw(*client, "PATCH", kDeployments + "/web", R"({"spec": {"replicas": 3}})",
                  "application/merge-patch+json");
  EXPECT_EQ(reply.status, 200) << reply.body;

  reply = Send(*client, "GET", kDeployments);
  ASSERT_EQ(reply.status, 200);
  ASSERT_EQ(reply.json["items"].size(), 1u) << "only web was stored";
  EXPECT_EQ(reply.json["items"][0]["spec"]["replicas"], 3);
  EXPECT_EQ(reply.json["items"][0]["spec"]["selector"]["matchLabels"]["app"], "web");
}

}  // namespace
}  // namespace gpupool::sandbox::testing
