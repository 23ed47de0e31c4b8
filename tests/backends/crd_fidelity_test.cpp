// Custom resources as a real kube-apiserver checks and answers them, on every
// backend: each test has a Widget CRD of its own, in a group named after the
// test, and changes it as an admin would.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <thread>

#include "fidelity_fixture.h"

namespace gpupool::backends::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Json WidgetCrd(const std::string& group) {
  Json crd = Json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "spec": {"scope": "Namespaced",
      "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
      "versions": [{"name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {
          "spec": {"type": "object", "required": ["size"], "properties": {
            "size": {"type": "integer"},
            "color": {"type": "string", "enum": ["red", "blue"]}}},
          "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}}}}]}})");
  crd["metadata"]["name"] = "widgets." + group;
  crd["spec"]["group"] = group;
  return crd;
}

const std::string kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

class CrdFidelity : public FidelityOnBackend {
 protected:
  void SetUp() override {
    FidelityOnBackend::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    group_ = ns_ + ".example.com";
    widgets_ = "/apis/" + group_ + "/v1/namespaces/" + ns_ + "/widgets";
    crd_path_ = kCrds + "/widgets." + group_;
  }
  void TearDown() override {
    if (client_ && !group_.empty()) Send(*client_, "DELETE", crd_path_);
    FidelityOnBackend::TearDown();
  }

  // Creates the CRD and waits until its widgets are served.
  void CreateCrd(const Json& crd) {
    const Reply reply = Send(*client_, "POST", kCrds, crd);
    ASSERT_EQ(reply.status, 201) << reply.body;
    ASSERT_TRUE(Eventually([&] { return Send(*client_, "GET", widgets_).status == 200; }))
        << "widgets of " << group_ << " not served after 10 s";
  }
  Json Crd() { return Send(*client_, "GET", crd_path_).json; }
  // Replaces the CRD and waits until the server checks widgets by it: until a
  // dry-run create of `refused_now` is 422. A real server reloads a changed
  // definition a moment after the write.
  void ReplaceCrd(const Json& crd, const Json& refused_now) {
    const Reply reply = Send(*client_, "PUT", crd_path_, crd);
    ASSERT_EQ(reply.status, 200) << reply.body;
    ASSERT_TRUE(Eventually([&] {
      return Send(*client_, "POST", widgets_ + "?dryRun=All", refused_now).status == 422;
    })) << "the changed definition was not in force after 10 s";
  }
  Json Widget(const std::string& name, const Json& spec) const {
    return {{"apiVersion", group_ + "/v1"},
            {"kind", "Widget"},
            {"metadata", {{"name", name}}},
            {"spec", spec}};
  }
  Reply Patch(const std::string& path, const Json& body) {
    return Send(*client_, "PATCH", path, body, "application/merge-patch+json");
  }
  static bool Eventually(const std::function<bool()>& done) {
    for (int attempt = 0; attempt < 200; ++attempt) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  std::string group_, widgets_, crd_path_;
};

// The real server decodes a schema into typed fields: a keyword's value of
// the wrong type is a 400 from its decoder, before any validation, and names
// the field by Go's path (fields only, no map keys).
TEST_P(CrdFidelity, AKeywordValueOfTheWrongTypeRefusesTheDefinition) {
  const std::vector<std::pair<Json, std::string>> cases = {
      {{{"minLength", "3"}},
       "cannot unmarshal string into Go struct field JSONSchemaProps.spec."
       "versions.schema.openAPIV3Schema.properties.properties.minLength of "
       "type int64"},
      {{{"maxLength", 1.5}},
       "cannot unmarshal number 1.5 into Go struct field JSONSchemaProps."
       "spec.versions.schema.openAPIV3Schema.properties.properties."
       "maxLength of type int64"},
      {{{"nullable", "yes"}},
       "cannot unmarshal string into Go struct field JSONSchemaProps.spec."
       "versions.schema.openAPIV3Schema.properties.properties.nullable of "
       "type bool"},
      {{{"enum", "red"}},
       "cannot unmarshal string into Go struct field JSONSchemaProps.spec."
       "versions.schema.openAPIV3Schema.properties.properties.enum of type "
       "[]v1.JSON"}};
  for (const auto& [keyword, message] : cases) {
    Json crd = WidgetCrd(group_);
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
       ["color"]
           .update(keyword);
    const Reply reply = Send(*client_, "POST", kCrds, crd);
    ASSERT_EQ(reply.status, 400) << reply.body;
    EXPECT_EQ(reply.json["reason"], "BadRequest");
    EXPECT_EQ(reply.json["message"],
              "CustomResourceDefinition in version \"v1\" cannot be handled as a "
              "CustomResourceDefinition: json: " +
                  message);
  }
}

TEST_P(CrdFidelity, WithoutAStatusSubresourceStatusChangesBumpTheGeneration) {
  CreateCrd(WidgetCrd(group_));
  ASSERT_EQ(Send(*client_, "POST", widgets_, Widget("w", {{"size", 1}})).status, 201);
  Reply reply = Patch(widgets_ + "/w", {{"status", {{"ready", true}}}});
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json["metadata"]["generation"], 2);
  EXPECT_EQ(reply.json["status"]["ready"], true);
  reply = Patch(widgets_ + "/w", {{"metadata", {{"labels", {{"team", "a"}}}}}});
  EXPECT_EQ(reply.json["metadata"]["generation"], 2) << "metadata changes do not count";
}

TEST_P(CrdFidelity, FieldErrorCausesCarryTheirRealTypes) {
  CreateCrd(WidgetCrd(group_));
  const Reply reply = Send(*client_, "POST", widgets_, Widget("bad", {{"color", "green"}}));
  ASSERT_EQ(reply.status, 422) << reply.body;
  std::map<std::string, std::string> reasons;
  for (const auto& cause : reply.json["details"]["causes"])
    reasons[cause["field"]] = cause["reason"];
  EXPECT_EQ(reasons["spec.size"], "FieldValueRequired") << reply.body;
  EXPECT_EQ(reasons["spec.color"], "FieldValueNotSupported") << reply.body;
  EXPECT_EQ(reply.json["details"]["kind"], "Widget");
  EXPECT_EQ(reply.json["details"]["group"], group_);
  EXPECT_THAT(reply.json["message"].get<std::string>(),
              HasSubstr("Widget." + group_ + " \"bad\" is invalid"));
}

// The server's validation ratcheting (from 1.30; the sandbox answers as 1.32
// does): after the definition tightens, objects valid before keep taking
// updates that leave their now-invalid parts alone.
TEST_P(CrdFidelity, AnUpdateIsRefusedOnlyForWhatItChangesAfterTheSchemaTightens) {
  CreateCrd(WidgetCrd(group_));
  ASSERT_EQ(Send(*client_, "POST", widgets_, Widget("w", {{"size", 20}, {"color", "red"}})).status,
            201);
  Json crd = Crd();
  Json& spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
  spec["properties"]["color"]["enum"] = {"blue"};
  spec["x-kubernetes-validations"] = {{{"rule", "self.size < 10"}, {"message", "too large"}}};
  ReplaceCrd(crd, Widget("probe", {{"size", 50}}));

  Reply reply = Patch(widgets_ + "/w", {{"status", {{"ready", true}}}});
  if (MinorVersion(GetParam()) < 30) {
    // 1.29 checks the whole object on every write.
    EXPECT_EQ(reply.status, 422) << reply.body;
    EXPECT_EQ(CauseFields(reply.json), (std::vector<std::string>{"spec.color", "<nil>"}));
    return;
  }
  EXPECT_EQ(reply.status, 200) << "the spec is unchanged: " << reply.body;
  reply = Patch(widgets_ + "/w", {{"metadata", {{"labels", {{"team", "a"}}}}}});
  EXPECT_EQ(reply.status, 200) << reply.body;
  reply = Patch(widgets_ + "/w", {{"spec", {{"size", 30}}}});
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("too large"));
  reply = Patch(widgets_ + "/w", {{"spec", {{"color", "green"}}}});
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("spec.color"));
  reply = Patch(widgets_ + "/w", {{"spec", {{"size", 5}}}});
  EXPECT_EQ(reply.status, 200) << "the unchanged red is ratcheted: " << reply.body;
  EXPECT_EQ(reply.json["spec"]["color"], "red");
  reply = Send(*client_, "POST", widgets_, Widget("v", {{"size", 5}, {"color", "red"}}));
  EXPECT_EQ(reply.status, 422) << "a create has nothing to ratchet: " << reply.body;
}

// As the real server's status strategy: a write through /status is checked
// against the schema's status property alone, so a rule the rest of the
// object breaks since the definition changed does not block the controller
// that reports its status.
TEST_P(CrdFidelity, AStatusWriteIsValidatedAgainstTheStatusSchemaAlone) {
  CreateCrd(WidgetCrd(group_));
  ASSERT_EQ(Send(*client_, "POST", widgets_, Widget("w", {{"size", 1}})).status, 201);
  Json crd = Crd();
  crd["spec"]["versions"][0]["subresources"] = {{"status", Json::object()}};
  Json& root = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
  root["properties"]["owner"] = {{"type", "string"}};
  root["required"] = {"owner"};
  ReplaceCrd(crd, Widget("probe", {{"size", 1}}));

  const std::string status = widgets_ + "/w/status";
  Reply reply = Patch(status, {{"status", {{"ready", true}}}});
  EXPECT_EQ(reply.status, 200) << "the missing owner is not the status's: " << reply.body;
  EXPECT_EQ(reply.json["status"]["ready"], true);
  reply = Patch(widgets_ + "/w", {{"spec", {{"size", 2}}}});
  EXPECT_EQ(reply.status, 422) << "a write of the object itself checks the root: " << reply.body;
  EXPECT_EQ(CauseFields(reply.json), (std::vector<std::string>{"owner"}));

  // Up to 1.31 the status schema's errors name fields from inside it.
  reply = Patch(status, {{"status", {{"ready", "yes"}}}});
  ASSERT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(CauseFields(reply.json),
            (std::vector<std::string>{MinorVersion(GetParam()) >= 32 ? "status.ready" : "ready"}));
  // A strict merge patch's unknown field is the patcher's 422, naming "patch".
  reply = Patch(status + "?fieldValidation=Strict", {{"status", {{"ready", false}, {"bogus", 1}}}});
  EXPECT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(CauseFields(reply.json), (std::vector<std::string>{"patch"}));
  EXPECT_THAT(reply.json["message"].get<std::string>(),
              ::testing::StartsWith(" \"\" is invalid: patch: Invalid value: \"{"));
  EXPECT_THAT(reply.json["message"].get<std::string>(),
              ::testing::EndsWith("}\": strict decoding error: unknown field \"status.bogus\""));
  reply = Patch(status, {{"status", {{"ready", false}, {"bogus", 1}}}});
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_FALSE(reply.json["status"].contains("bogus")) << "pruned";
}

// An unknown field of a custom resource is pruned; the answer warns of it
// unless the request asked to ignore unknown fields.
TEST_P(CrdFidelity, PrunedFieldsWarnUnlessIgnored) {
  CreateCrd(WidgetCrd(group_));
  Reply reply = Send(*client_, "POST", widgets_, Widget("warned", {{"size", 1}, {"bogus", 1}}));
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_FALSE(reply.json["spec"].contains("bogus")) << "pruned";
  const auto warning = reply.headers.find("Warning");
  ASSERT_NE(warning, reply.headers.end());
  EXPECT_THAT(warning->second, HasSubstr("unknown field \\\"spec.bogus\\\""));

  reply = Send(*client_, "POST", widgets_ + "?fieldValidation=Ignore",
               Widget("ignored", {{"size", 1}, {"bogus", 1}}));
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_FALSE(reply.json["spec"].contains("bogus")) << "pruned";
  EXPECT_EQ(reply.headers.count("Warning"), 0u) << reply.headers.find("Warning")->second;
  reply = Patch(widgets_ + "/ignored?fieldValidation=Ignore", {{"spec", {{"bogus", 2}}}});
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.headers.count("Warning"), 0u) << reply.headers.find("Warning")->second;
}

// A custom resource takes no strategic merge patch and no protobuf body; the
// 415 lists what it does take. A patch of a type no resource takes gets a
// terse 415.
TEST_P(CrdFidelity, UnsupportedMediaTypesListWhatACustomResourceAccepts) {
  CreateCrd(WidgetCrd(group_));
  ASSERT_EQ(Send(*client_, "POST", widgets_, Widget("w", {{"size", 1}})).status, 201);
  Reply reply = Send(*client_, "PATCH", widgets_ + "/w", Json{{"spec", {{"size", 2}}}},
                     "application/strategic-merge-patch+json");
  EXPECT_EQ(reply.status, 415) << reply.body;
  EXPECT_EQ(reply.json["message"],
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, "
            "application/apply-patch+yaml");
  reply = SendRaw(*client_, "POST", widgets_, std::string("k8s\0", 4),
                  "application/vnd.kubernetes.protobuf");
  if (cluster_->real()) {
    // The real server's handler panics on this body and drops the stream.
    EXPECT_TRUE(reply.status == 0 || reply.status == 415 || reply.status == 500) << reply.body;
  } else {
    EXPECT_EQ(reply.status, 415) << reply.body;
    EXPECT_EQ(reply.json["message"],
              "the body of the request was in an unknown format - accepted media types include: "
              "application/json, application/yaml");
  }
  reply = SendRaw(*client_, "PATCH", CorePath("configmaps/none"), "{}", "application/xml");
  EXPECT_EQ(reply.status, 415) << reply.body;
  EXPECT_EQ(reply.json["reason"], "UnsupportedMediaType");
  EXPECT_EQ(reply.json["message"], "415: Unsupported Media Type");
  reply = SendRaw(*client_, "POST", CorePath("configmaps"), "a: b", "text/plain");
  EXPECT_EQ(reply.status, 415) << reply.body;
  EXPECT_THAT(reply.json["message"].get<std::string>(),
              HasSubstr("include: application/json, application/yaml, "
                        "application/vnd.kubernetes.protobuf"));
}

// Rules run beside schema errors of value (a maximum), but not after a
// blocking one (an enum): one error then says they were skipped.
TEST_P(CrdFidelity, RulesRunUnlessASchemaErrorBlocksThem) {
  CreateCrd(WidgetCrd(group_));
  Json crd = Crd();
  Json& spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
  spec["properties"]["size"]["maximum"] = 100;
  spec["x-kubernetes-validations"] = {{{"rule", "self.size < 10"}, {"message", "too large"}}};
  ReplaceCrd(crd, Widget("probe", {{"size", 50}}));

  Reply reply = Send(*client_, "POST", widgets_, Widget("a", {{"size", 200}, {"color", "red"}}));
  ASSERT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(CauseFields(reply.json), (std::vector<std::string>{"spec.size", "spec"}));
  EXPECT_THAT(reply.body, HasSubstr("too large"));

  reply = Send(*client_, "POST", widgets_, Widget("b", {{"size", 20}, {"color", "green"}}));
  ASSERT_EQ(reply.status, 422) << reply.body;
  EXPECT_EQ(CauseFields(reply.json), (std::vector<std::string>{"spec.color", "<nil>"}));
  EXPECT_THAT(reply.body, Not(HasSubstr("too large")));
  EXPECT_THAT(reply.json["message"].get<std::string>(),
              HasSubstr("<nil>: Invalid value: \"null\": some validation rules were not checked "
                        "because the object was invalid; correct the existing errors to complete "
                        "validation"));
}

INSTANTIATE_TEST_SUITE_P(All, CrdFidelity, ::testing::ValuesIn(Backends()), BackendParamName);

}  // namespace
}  // namespace gpupool::backends::testing
