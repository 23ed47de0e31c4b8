// Apply bodies a real server refuses: each gets a clear 4xx and the sandbox
// keeps serving.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apply_util.h"

namespace gpupool::sandbox::testing {
namespace {

using ::testing::HasSubstr;

class ApplyHostileTest : public ::testing::Test {
 protected:
  Reply Apply(const std::string& body) {
    return ApplyYaml(*client_, "/api/v1/namespaces/default/configmaps/target", body);
  }

  void TearDown() override {
    // Whatever came before, the server still answers and stored nothing.
    const Reply reply = Send(*client_, "GET", "/api/v1/namespaces/default/configmaps/target");
    EXPECT_EQ(reply.status, 404) << reply.body;
  }

  SandboxProcess sandbox_{{"--plain-http"}};
  std::unique_ptr<httplib::Client> client_ = sandbox_.Http();
};

TEST_F(ApplyHostileTest, InvalidYamlIs400) {
  const Reply reply = Apply("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: target\n");
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_EQ(reply.json["reason"], "BadRequest");
  EXPECT_THAT(reply.body, HasSubstr("error decoding YAML"));
}

TEST_F(ApplyHostileTest, AListInsteadOfAnObjectIs400) {
  Reply reply = Apply("- apiVersion: v1\n- kind: ConfigMap\n");
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("cannot unmarshal array into Go value of type map"));
  reply = Apply(R"([{"apiVersion": "v1"}])");
  EXPECT_EQ(reply.status, 400) << reply.body;
  reply = Apply("just a string");
  EXPECT_EQ(reply.status, 400) << reply.body;
}

TEST_F(ApplyHostileTest, HundredThousandLevelsOfNestingAre400) {
  const size_t levels = 100000;
  std::string json = R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "target"},
                        "data": )";
  json += std::string(levels, '[') + std::string(levels, ']') + "}";
  Reply reply = Apply(json);
  EXPECT_EQ(reply.status, 400) << reply.body.substr(0, 300);
  EXPECT_THAT(reply.body, HasSubstr("exceeded max depth"));
  std::string yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: target}\ndata:\n  x: ";
  for (size_t i = 0; i < levels; ++i) yaml += "- ";
  reply = Apply(yaml + "deep\n");
  EXPECT_EQ(reply.status, 400) << reply.body.substr(0, 300);
}

TEST_F(ApplyHostileTest, AHugeBodyIs413) {
  const std::string body = ConfigMapYaml("target", "{a: '" + std::string(4 << 20, 'x') + "'}");
  const Reply reply = Apply(body);
  EXPECT_EQ(reply.status, 413) << reply.body.substr(0, 300);
  EXPECT_EQ(reply.json["reason"], "RequestEntityTooLarge");
}

TEST_F(ApplyHostileTest, AliasesThatExpandWithoutLimitAre400) {
  std::string yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 12; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int j = 1; j < 10; ++j) yaml += ", " + prev;
    yaml += "]\n";
  }
  const Reply reply = Apply(yaml + "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: target}\n");
  EXPECT_EQ(reply.status, 400) << reply.body.substr(0, 300);
  EXPECT_THAT(reply.body, HasSubstr("aliases expand to too many values"));
}

TEST_F(ApplyHostileTest, ManagedFieldsInTheBodyAre400) {
  const Reply reply = Apply(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: target\n"
      "  managedFields: [{manager: me, operation: Apply}]\n");
  EXPECT_EQ(reply.status, 400) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("metadata.managedFields must be nil"));
}

TEST_F(ApplyHostileTest, FieldsOfTheWrongTypeAre4xx) {
  for (const char* body : {"apiVersion: 1\nkind: ConfigMap\nmetadata: {name: target}\n",
                           "apiVersion: v1\nkind: ConfigMap\nmetadata: [target]\n",
                           "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [target]}\n",
                           "apiVersion: v1\nkind: ConfigMap\n"
                           "metadata: {name: target, resourceVersion: {a: 1}}\n"}) {
    const Reply reply = Apply(body);
    EXPECT_GE(reply.status, 400) << body << reply.body;
    EXPECT_LT(reply.status, 500) << body << reply.body;
  }
}

}  // namespace
}  // namespace gpupool::sandbox::testing
