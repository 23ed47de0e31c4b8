#include <gtest/gtest.h>

#include "gpupool/json/without.h"

namespace gpupool::json {
namespace {

using Json = nlohmann::json;

const char* kPodText = R"({
  "kind": "Pod",
  "metadata": {"name": "p", "managedFields": [{"manager": "m", "fieldsV1": {"f:spec": {}}}],
               "labels": {"managedFields": "a label"}},
  "spec": {"containers": [{"name": "c", "managedFields": 1}], "priority": -5, "ratio": 0.5,
           "big": 18446744073709551615, "on": true, "off": null},
  "status": {"conditions": [{"type": "Ready"}], "phase": "Running"}
})";

TEST(ParseWithout, LeavesOutOnlyTheNamedMembers) {
  Json expected = Json::parse(kPodText);
  expected["metadata"].erase("managedFields");
  EXPECT_EQ(ParseWithout(kPodText, {{"metadata", "managedFields"}}), expected);
}

TEST(ParseWithout, NothingSkippedIsTheWholeValue) {
  EXPECT_EQ(ParseWithout(kPodText, {}), Json::parse(kPodText));
  EXPECT_EQ(ParseWithout("[1, {\"a\": [2]}]", {{"a"}}), Json::parse("[1, {\"a\": [2]}]"));
  EXPECT_EQ(ParseWithout("\"text\"", {{"a"}}), Json("text"));
}

TEST(ParseWithout, AStarIsAnyNameButNoArrayItem) {
  Json expected = Json::parse(kPodText);
  expected["metadata"].erase("managedFields");
  expected["metadata"]["labels"].erase("managedFields");
  expected["status"].erase("conditions");
  // containers[0].managedFields is under an array: no path reaches it.
  EXPECT_EQ(ParseWithout(kPodText, {{"*", "managedFields"},
                                    {"*", "*", "managedFields"},
                                    {"status", "conditions"},
                                    {"spec", "*", "managedFields"}}),
            expected);
}

TEST(ParseWithout, SkipsScalarsAndNestedContainers) {
  const char* text = R"({"a": {"b": [[{"c": {}}], []], "c": 1}, "d": "x", "e": {"f": 2}})";
  EXPECT_EQ(ParseWithout(text, {{"a", "b"}, {"d"}}),
            Json::parse(R"({"a": {"c": 1}, "e": {"f": 2}})"));
  EXPECT_EQ(ParseWithout(text, {{"a"}, {"e", "f"}}), Json::parse(R"({"d": "x", "e": {}})"));
}

TEST(ParseWithout, TheLastOfRepeatedMembersWins) {
  EXPECT_EQ(ParseWithout(R"({"a": 1, "a": {"b": 2, "c": 3}})", {{"a", "c"}}),
            Json::parse(R"({"a": {"b": 2}})"));
}

TEST(ParseWithout, MalformedTextIsDiscarded) {
  for (const char* text : {"", "{", "{\"a\": [1, 2}", "{} {}", "{\"a\": tru}", "[1,]"}) {
    EXPECT_TRUE(ParseWithout(text, {{"a"}}).is_discarded()) << text;
  }
}

}  // namespace
}  // namespace gpupool::json
