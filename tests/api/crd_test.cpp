// The CRDs are the API contract: each must be structural and complete, and
// every example must be valid against its CRD schema and our validator.
#include <gtest/gtest.h>

#include <map>

#include "gpupool/api/validate.h"
#include "gpupool/json/yaml.h"
#include "gpupool/openapi/openapi_schema.h"
#include "test_objects.h"

namespace gpupool::api {
namespace {

using Json = nlohmann::json;

using testing::SourcePath;
using testing::YamlFilesIn;

std::map<std::string, Json> LoadCrdsByKind() {
  std::map<std::string, Json> crds;
  for (const auto& file : YamlFilesIn("crds")) {
    for (auto& document : json::LoadYamlFile(file)) {
      crds[document["spec"]["names"]["kind"].get<std::string>()] = document;
    }
  }
  return crds;
}

TEST(Crds, ThereIsOneForEachKind) {
  auto crds = LoadCrdsByKind();
  ASSERT_EQ(crds.size(), 4u);
  EXPECT_EQ(crds["Queue"]["spec"]["scope"], "Cluster");
  EXPECT_EQ(crds["Department"]["spec"]["scope"], "Cluster");
  EXPECT_EQ(crds["Project"]["spec"]["scope"], "Cluster");
  EXPECT_EQ(crds["TrainingJob"]["spec"]["scope"], "Namespaced");
}

TEST(Crds, AreStructuralWithOneStorageVersionAndStatus) {
  for (const auto& [kind, crd] : LoadCrdsByKind()) {
    SCOPED_TRACE(kind);
    EXPECT_EQ(crd["apiVersion"], "apiextensions.k8s.io/v1");
    EXPECT_EQ(crd["spec"]["group"], "gpupool.dev");
    const auto& versions = crd["spec"]["versions"];
    ASSERT_EQ(versions.size(), 1u);
    EXPECT_EQ(versions[0]["name"], "v1alpha1");
    EXPECT_TRUE(versions[0]["served"].get<bool>());
    EXPECT_TRUE(versions[0]["storage"].get<bool>());
    EXPECT_TRUE(versions[0]["subresources"]["status"].is_object());
    EXPECT_EQ(json::JoinErrors(openapi::CheckStructural(versions[0]["schema"]["openAPIV3Schema"])),
              "");
    EXPECT_FALSE(versions[0]["additionalPrinterColumns"].empty());
    EXPECT_EQ(crd["spec"]["names"]["categories"], Json::array({"gpupool"}));
    EXPECT_FALSE(crd["spec"]["names"]["shortNames"].empty());
    EXPECT_EQ(crd["metadata"]["name"].get<std::string>(),
              crd["spec"]["names"]["plural"].get<std::string>() + ".gpupool.dev");
  }
}

TEST(Crds, StructuralCheckRejectsNodesWithoutType) {
  auto schema = Json::parse(R"({"type": "object", "properties": {
      "spec": {"properties": {"x": {"type": "string"}}},
      "list": {"type": "array"},
      "bad": {"type": "object", "$ref": "#/x", "properties": {}, "additionalProperties": {"type": "string"}},
      "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}})");
  auto errors = openapi::CheckStructural(schema);
  auto has = [&](const std::string& path) {
    for (const auto& error : errors) {
      if (error.path == path) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("openAPIV3Schema.properties.spec.type"));
  EXPECT_TRUE(has("openAPIV3Schema.properties.list.items"));
  EXPECT_TRUE(has("openAPIV3Schema.properties.bad.$ref"));
  EXPECT_TRUE(has("openAPIV3Schema.properties.bad.additionalProperties"));
  EXPECT_TRUE(has("openAPIV3Schema.properties.either.type"));
  EXPECT_TRUE(has("openAPIV3Schema.properties.either.anyOf[0].type"));
}

// A schema may limit metadata.name and metadata.generateName (strings), and
// nothing else of the server's metadata.
TEST(Crds, StructuralCheckLimitsMetadataToNameAndGenerateName) {
  auto schema = Json::parse(R"({"type": "object", "properties": {"metadata": {"type": "object",
      "properties": {"name": {"type": "string", "maxLength": 63},
                     "generateName": {"type": "string", "maxLength": 58}}}}})");
  EXPECT_EQ(json::JoinErrors(openapi::CheckStructural(schema)), "");
  schema["properties"]["metadata"]["properties"]["namespace"] = {{"type", "string"}};
  schema["properties"]["metadata"]["properties"]["name"]["type"] = "integer";
  EXPECT_EQ(json::JoinErrors(openapi::CheckStructural(schema)),
            "openAPIV3Schema.properties.metadata.properties[name].type: must be string; "
            "openAPIV3Schema.properties.metadata.properties[namespace]: Forbidden: must not be "
            "specified: only name and generateName may be");
}

// The API server decodes a schema into typed fields: a keyword's value of the
// wrong type refuses the definition, instead of every object checked against it.
TEST(Crds, StructuralCheckRejectsKeywordValuesOfTheWrongType) {
  auto schema = Json::parse(R"({"type": "object", "properties": {
      "name": {"type": "string", "minLength": "5", "maxLength": -1, "pattern": "([a-z"},
      "size": {"type": "integer", "minimum": "1", "nullable": "yes"},
      "kind": {"type": 7},
      "keys": {"type": "array", "items": {"type": "string"},
               "x-kubernetes-list-type": "bag", "x-kubernetes-list-map-keys": ["a", 1]},
      "spec": {"type": "object", "required": "name", "properties": ["x"]},
      "choice": {"type": "string", "enum": "a"}}})");
  EXPECT_EQ(json::JoinErrors(openapi::CheckStructural(schema)),
            "openAPIV3Schema.properties.choice.enum: must be a list; "
            "openAPIV3Schema.properties.keys.x-kubernetes-list-map-keys: must be a list of "
            "strings; "
            "openAPIV3Schema.properties.kind.type: must be a string; "
            "openAPIV3Schema.properties.name.minLength: must be a non-negative integer; "
            "openAPIV3Schema.properties.name.maxLength: must be a non-negative integer; "
            "openAPIV3Schema.properties.size.minimum: must be a number; "
            "openAPIV3Schema.properties.size.nullable: must be a boolean; "
            "openAPIV3Schema.properties.spec.required: must be a list of strings; "
            "openAPIV3Schema.properties.spec.properties: must be an object");
  auto readable = Json::parse(R"({"type": "object", "properties": {
      "name": {"type": "string", "pattern": "([a-z"},
      "keys": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "bag"}}})");
  EXPECT_EQ(json::JoinErrors(openapi::CheckStructural(readable)),
            "openAPIV3Schema.properties.keys.x-kubernetes-list-type: Unsupported value: \"bag\": "
            "supported values: \"atomic\", \"map\", \"set\"; "
            "openAPIV3Schema.properties.name.pattern: must be a valid regular expression");
}

TEST(Examples, EveryObjectIsValidAgainstItsCrdAndOurRules) {
  auto crds = LoadCrdsByKind();
  auto files = YamlFilesIn("examples");
  ASSERT_FALSE(files.empty());
  int checked = 0;
  for (const auto& file : files) {
    for (auto object : json::LoadYamlFile(file)) {
      const std::string kind = object.value("kind", "");
      if (!crds.count(kind)) continue;
      SCOPED_TRACE(file + ": " + kind + " " + object["metadata"].value("name", ""));
      const Json& schema = crds[kind]["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
      EXPECT_EQ(json::JoinErrors(ValidateObject(object)), "");
      Json defaulted = object;
      openapi::ApplyDefaults(schema, defaulted);
      EXPECT_EQ(json::JoinErrors(openapi::ValidateAgainstSchema(schema, defaulted)), "");
      EXPECT_TRUE(openapi::Prune(schema, defaulted).empty())
          << "example has fields the CRD does not know";
      ++checked;
    }
  }
  EXPECT_GE(checked, 15);
}

TEST(Examples, EveryStoryHasItsFile) {
  for (const char* name : {"queues", "story1-susan-joe-jemma", "story1-joe-submits",
                           "story2-bob-patty", "story2-patty-submits", "story3-build-notebook",
                           "story4-distributed", "story5-half-gpu", "story6-priorities"}) {
    EXPECT_FALSE(json::LoadYamlFile(SourcePath(std::string("examples/") + name + ".yaml")).empty())
        << name;
  }
}

}  // namespace
}  // namespace gpupool::api
