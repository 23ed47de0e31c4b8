#include <gtest/gtest.h>

#include "sandbox/api_error.h"
#include "sandbox/store/patch.h"
#include "sandbox/store/selectors.h"

namespace gpupool::sandbox {
namespace {

TEST(SelectorTest, LabelSelectorOperators) {
  const StringPairs labels = {{"pool", "train"}, {"gpu", "A100"}};
  EXPECT_TRUE(LabelSelector::Parse("pool=train,gpu==A100").Matches(labels));
  EXPECT_TRUE(LabelSelector::Parse("pool in (build, train),!missing").Matches(labels));
  EXPECT_FALSE(LabelSelector::Parse("pool notin (train)").Matches(labels));
  EXPECT_FALSE(LabelSelector::Parse("pool!=train").Matches(labels));
  EXPECT_TRUE(LabelSelector::Parse("gpu").Matches(labels));
  EXPECT_TRUE(LabelSelector::Parse("").Matches(labels));
}

TEST(SelectorTest, MalformedSelectorsNameTheParameter) {
  for (const char* bad : {"pool in train", "a b c", "bad key=1", "x=(y)"}) {
    try {
      LabelSelector::Parse(bad);
      ADD_FAILURE() << bad;
    } catch (const ApiError& error) {
      EXPECT_EQ(error.code, 400);
      EXPECT_NE(std::string(error.what()).find("labelSelector"), std::string::npos) << bad;
    }
  }
  try {
    FieldSelector::Parse("spec.unknown=1", {"spec.nodeName"});
    ADD_FAILURE();
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 400);
    EXPECT_NE(std::string(error.what()).find("field label not supported: spec.unknown"),
              std::string::npos);
  }
  EXPECT_THROW(FieldSelector::Parse("novalue", {}), ApiError);
}

// The real server's words, which kubectl shows after its own "Unable to find".
TEST(SelectorTest, FieldSelectorErrorsAreTheServersMessages) {
  const auto message_of = [](const std::string& text) {
    try {
      FieldSelector::Parse(text, {"spec.nodeName"});
    } catch (const ApiError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message_of("spec.unknown=1"), "field label not supported: spec.unknown");
  EXPECT_EQ(message_of("spec.nodeName=a,foo"),
            "invalid selector: 'spec.nodeName=a,foo'; can't understand 'foo'");
  EXPECT_EQ(message_of("a!b"), "invalid selector: 'a!b'; can't understand 'a!b'");
  EXPECT_EQ(message_of("=x"), "field label not supported: ");
  EXPECT_EQ(message_of("spec.nodeName=a,,"), "accepted");  // empty terms are skipped
  EXPECT_TRUE(FieldSelector::Parse("spec.nodeName==n1", {"spec.nodeName"})
                  .Matches({"spec.nodeName"}, {"n1"}));
  EXPECT_FALSE(FieldSelector::Parse("spec.nodeName!=n1", {"spec.nodeName"})
                   .Matches({"spec.nodeName"}, {"n1"}));
}

TEST(SelectorTest, FieldSelector) {
  const auto selector = FieldSelector::Parse("spec.nodeName=n1,status.phase!=Failed",
                                             {"spec.nodeName", "status.phase"});
  const std::vector<std::string> names = {"spec.nodeName", "status.phase"};
  EXPECT_TRUE(selector.Matches(names, {"n1", "Running"}));
  EXPECT_FALSE(selector.Matches(names, {"n1", "Failed"}));
  EXPECT_FALSE(selector.Matches({"spec.nodeName"}, {"n2"}));
  EXPECT_FALSE(selector.Matches({}, {}));  // an absent field has the value ""
  EXPECT_TRUE(FieldSelector::Parse("spec.nodeName=", {"spec.nodeName"}).Matches({}, {}));
}

TEST(PatchTest, StrategicMergeUsesListMergeKeys) {
  const Json pod = {
      {"metadata", {{"finalizers", {"a"}}}},
      {"spec",
       {{"containers", {{{"name", "main"}, {"image", "v1"}}, {{"name", "side"}, {"image", "s"}}}},
        {"schedulingGates", {{{"name", "gpupool.dev/admission"}}, {{"name", "other"}}}}}}};
  const Json patch = {
      {"metadata", {{"finalizers", {"b"}}}},
      {"spec",
       {{"containers", {{{"name", "main"}, {"image", "v2"}}}},
        {"schedulingGates", {{{"name", "gpupool.dev/admission"}, {"$patch", "delete"}}}},
        {"$setElementOrder/containers", {{{"name", "main"}}, {{"name", "side"}}}}}}};
  const Json merged = StrategicMerge(pod, patch);
  EXPECT_EQ(merged["spec"]["containers"].size(), 2u);
  EXPECT_EQ(merged["spec"]["containers"][0]["image"], "v2");
  EXPECT_EQ(merged["spec"]["schedulingGates"], Json::array({{{"name", "other"}}}));
  EXPECT_EQ(merged["metadata"]["finalizers"], Json::array({"a", "b"}));
}

TEST(PatchTest, MergeAndJsonPatch) {
  const Json object = {{"spec", {{"a", 1}, {"b", 2}}}};
  EXPECT_EQ(ApplyPatch(PatchType::kMerge, object, R"({"spec":{"a":null,"c":3}})"),
            Json({{"spec", {{"b", 2}, {"c", 3}}}}));
  EXPECT_EQ(
      ApplyPatch(PatchType::kJson, object, R"([{"op":"replace","path":"/spec/a","value":5}])"),
      Json({{"spec", {{"a", 5}, {"b", 2}}}}));
  try {
    ApplyPatch(PatchType::kJson, object, R"([{"op":"test","path":"/spec/a","value":9}])");
    ADD_FAILURE();
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 422);
  }
  EXPECT_THROW(ApplyPatch(PatchType::kMerge, object, "{not json"), ApiError);
  try {
    ParsePatchType("text/plain");
    ADD_FAILURE();
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 415);
  }
  EXPECT_EQ(ParsePatchType("application/strategic-merge-patch+json"), PatchType::kStrategic);
  try {
    ParsePatchType("application/strategic-merge-patch+json", true);
    ADD_FAILURE() << "custom resources take no strategic merge patch";
  } catch (const ApiError& error) {
    EXPECT_EQ(error.code, 415);
  }
}

}  // namespace
}  // namespace gpupool::sandbox
