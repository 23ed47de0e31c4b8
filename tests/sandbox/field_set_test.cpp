// Field sets and their FieldsV1 encoding, and objects compared as field sets.
#include "sandbox/store/field_set.h"

#include <gtest/gtest.h>

#include "sandbox/rules/resource_type.h"
#include "sandbox/store/field_walk.h"

namespace gpupool::sandbox {
namespace {

TEST(FieldSetTest, FieldsV1RoundTripsAndPrintsPaths) {
  const Json encoded = Json::parse(R"({
      "f:data": {".": {}, "f:a": {}},
      "f:spec": {"f:containers": {"k:{\"name\":\"main\"}": {".": {}, "f:image": {}}},
                 "f:finalizers": {"v:\"x\"": {}}, "f:items": {"i:0": {}}}})");
  const auto fields = FieldSet::FromFieldsV1(encoded);
  ASSERT_TRUE(fields.has_value());
  EXPECT_EQ(fields->ToFieldsV1(), encoded);
  EXPECT_EQ(fields->Paths(),
            (std::vector<std::string>{".data", ".data.a", ".spec.containers[name=\"main\"]",
                                      ".spec.containers[name=\"main\"].image",
                                      ".spec.finalizers[=\"x\"]", ".spec.items[0]"}));
}

TEST(FieldSetTest, MalformedFieldsV1IsRefused) {
  for (const char* text :
       {R"([])", R"({"spec": {}})", R"({"f:": {}})", R"({"f:a": 1})", R"({"k:notjson": {}})",
        R"({"k:[1]": {}})", R"({"i:x": {}})", R"({".": {"f:a": {}}})", R"({"f:a": {"f:b": []}})"}) {
    EXPECT_FALSE(FieldSet::FromFieldsV1(Json::parse(text)).has_value()) << text;
  }
}

TEST(FieldSetTest, UnionDifferenceAndIntersection) {
  auto a = *FieldSet::FromFieldsV1(Json::parse(R"({"f:x": {}, "f:y": {"f:z": {}}})"));
  const auto b = *FieldSet::FromFieldsV1(Json::parse(R"({"f:y": {"f:z": {}}, "f:w": {}})"));
  EXPECT_EQ(a.Common(b).Paths(), std::vector<std::string>{".y.z"});
  FieldSet both = a;
  both.Add(b);
  EXPECT_EQ(both.Paths(), (std::vector<std::string>{".w", ".x", ".y.z"}));
  a.Remove(b);
  EXPECT_EQ(a.ToFieldsV1(), Json::parse(R"({"f:x": {}})"));
}

TEST(FieldSetTest, UnionTakingTheOthersNodesMergesSharedSteps) {
  auto a = *FieldSet::FromFieldsV1(Json::parse(R"({"f:x": {}, "f:y": {"f:z": {}}})"));
  auto b = *FieldSet::FromFieldsV1(Json::parse(R"({"f:y": {".": {}, "f:v": {}}, "f:w": {}})"));
  a.Add(std::move(b));
  EXPECT_EQ(a.Paths(), (std::vector<std::string>{".w", ".x", ".y", ".y.v", ".y.z"}));
  FieldSet empty;
  empty.Add(std::move(a));
  EXPECT_EQ(empty.Paths(), (std::vector<std::string>{".w", ".x", ".y", ".y.v", ".y.z"}));
}

TEST(FieldWalkTest, ComparesKeyedListsByKeyAndOthersAsAWhole) {
  ResourceType pods;
  pods.kind = "Pod";
  const auto shapes = FieldShapes::Of(pods);
  const Json before = Json::parse(R"({"spec": {"containers": [{"name": "a", "image": "1"}],
                                              "args": ["x"]}})");
  const Json after = Json::parse(R"({"spec": {"containers": [{"name": "a", "image": "2"},
                                                             {"name": "b", "image": "1"}],
                                             "args": ["y"]}})");
  const FieldChanges changes = CompareFields(before, after, shapes);
  EXPECT_EQ(changes.modified.Paths(),
            (std::vector<std::string>{".spec.args", ".spec.containers[name=\"a\"].image"}));
  EXPECT_EQ(changes.added.Paths(), (std::vector<std::string>{".spec.containers[name=\"b\"]",
                                                             ".spec.containers[name=\"b\"].image",
                                                             ".spec.containers[name=\"b\"].name"}));
  EXPECT_TRUE(changes.removed.Empty());
}

}  // namespace
}  // namespace gpupool::sandbox
