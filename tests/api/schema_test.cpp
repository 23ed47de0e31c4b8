#include <gtest/gtest.h>

#include "gpupool/openapi/openapi_schema.h"

namespace gpupool::openapi {
namespace {

const Json kSchema = Json::parse(R"({
  "type": "object",
  "properties": {
    "spec": {"type": "object", "required": ["name"], "properties": {
      "name": {"type": "string", "minLength": 1, "maxLength": 5, "pattern": "^[a-z]+$"},
      "mode": {"type": "string", "enum": ["A", "B"], "default": "A"},
      "size": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 10, "default": 2},
      "amount": {"x-kubernetes-int-or-string": true,
                 "anyOf": [{"type": "integer"}, {"type": "string"}]},
      "when": {"type": "string", "format": "date-time"},
      "labels": {"type": "object", "additionalProperties": {"type": "string"}},
      "items": {"type": "array", "minItems": 1, "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["id"],
                "items": {"type": "object", "properties": {"id": {"type": "string"},
                          "n": {"type": "integer", "default": 7}}}},
      "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
      "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}}})");

std::string Errors(const Json& spec) {
  return json::JoinErrors(ValidateAgainstSchema(kSchema, Json{{"spec", spec}}));
}

TEST(Schema, AcceptsAValidObject) {
  EXPECT_EQ(Errors(Json::parse(R"({"name": "abc", "mode": "B", "size": 3, "amount": "0.5",
      "when": "2026-11-22T05:00:00Z", "labels": {"a": "b"}, "items": [{"id": "x"}],
      "free": {"anything": [1, 2]}, "tags": ["a", "b"]})")),
            "");
}

TEST(Schema, ReportsEachViolationWithItsPath) {
  EXPECT_EQ(Errors(Json::object()), "spec.name: Required value");
  EXPECT_EQ(Errors({{"name", ""}}),
            "spec.name: must be at least 1 characters long; spec.name: \"\" must match the "
            "pattern ^[a-z]+$");
  EXPECT_EQ(Errors({{"name", "abcdef"}}), "spec.name: must be at most 5 characters long");
  EXPECT_EQ(Errors({{"name", "a"}, {"mode", "C"}}),
            "spec.mode: Unsupported value: \"C\": supported values: \"A\", \"B\"");
  EXPECT_EQ(Errors({{"name", "a"}, {"size", 0}}), "spec.size: must be >= 1");
  EXPECT_EQ(Errors({{"name", "a"}, {"size", 11}}), "spec.size: must be <= 10");
  EXPECT_EQ(Errors({{"name", "a"}, {"size", "3"}}),
            "spec.size: must be of type integer, got string");
  EXPECT_EQ(Errors({{"name", "a"}, {"amount", 0.5}}),
            "spec.amount: must be an integer or a string, got number");
  EXPECT_EQ(Errors({{"name", "a"}, {"when", "yesterday"}}),
            "spec.when: \"yesterday\" must be an RFC 3339 date-time");
  EXPECT_EQ(Errors({{"name", "a"}, {"labels", {{"a", 1}}}}),
            "spec.labels.a: must be of type string, got integer");
  EXPECT_EQ(Errors({{"name", "a"}, {"items", Json::array()}}),
            "spec.items: must have at least 1 items");
  EXPECT_EQ(Errors(Json::parse(R"({"name": "a", "items": [{"id": "x"}, {"id": "x"}]})")),
            "spec.items[1]: Duplicate value: [\"x\"]");
  EXPECT_EQ(Errors(Json::parse(R"({"name": "a", "tags": ["t", "t"]})")),
            "spec.tags[1]: Duplicate value: \"t\"");
  EXPECT_EQ(Errors({{"name", nullptr}}), "spec.name: must not be null");
}

TEST(Schema, ReadsDateTimesAsRfc3339) {
  for (const char* when :
       {"2026-11-22T05:00:00Z", "2026-11-22t05:00:00z", "2026-11-22 05:00:00Z",
        "2026-11-22T05:00:00.123456Z", "2026-11-22T05:00:00+01:00", "2026-11-22T05:00:00.5-07:30"})
    EXPECT_EQ(Errors({{"name", "a"}, {"when", when}}), "") << when;
  for (const char* when :
       {"", "2026-11-22", "2026-11-22T05:00:00", "2026-11-22T05:00:001Z", "2026-11-22T05:00:00.Z",
        "2026-11-22T05:00:00+0100", "2026-11-22T05:00:00+01:00 ", "26-11-22T05:00:00Z",
        "2026-1a-22T05:00:00Z", "2026-11-22X05:00:00Z", "2026-11-22T05:00:00ZZ"})
    EXPECT_EQ(Errors({{"name", "a"}, {"when", when}}),
              std::string("spec.when: \"") + when + "\" must be an RFC 3339 date-time")
        << when;
}

TEST(Schema, AppliesDefaultsRecursively) {
  Json object = Json::parse(R"({"spec": {"name": "a", "items": [{"id": "x"}]}})");
  ApplyDefaults(kSchema, object);
  EXPECT_EQ(object["spec"]["mode"], "A");
  EXPECT_EQ(object["spec"]["size"], 2);
  EXPECT_EQ(object["spec"]["items"][0]["n"], 7);
  EXPECT_FALSE(object["spec"].contains("labels"));
}

TEST(Schema, PrunesUnknownFieldsButKeepsPreservedOnes) {
  Json object = Json::parse(R"({"apiVersion": "v", "kind": "K", "metadata": {"name": "x"},
      "extra": 1, "spec": {"name": "a", "typo": 2, "free": {"kept": 3},
      "items": [{"id": "x", "bogus": 4}]}})");
  auto removed = Prune(kSchema, object);
  EXPECT_EQ(removed, (std::vector<std::string>{"extra", "spec.items[0].bogus", "spec.typo"}));
  EXPECT_EQ(object["spec"]["free"]["kept"], 3);
  EXPECT_EQ(object["metadata"]["name"], "x");
}

std::string UpdateErrors(const Json& spec, const Json& old_spec) {
  return json::JoinErrors(
      ValidateUpdateAgainstSchema(kSchema, Json{{"spec", spec}}, Json{{"spec", old_spec}}));
}

TEST(Schema, AnUpdateIsRefusedOnlyForWhatItChanges) {
  const Json stored = {{"name", "TOOLONG"}, {"size", 1}};  // Valid under an older schema.
  EXPECT_EQ(UpdateErrors({{"name", "TOOLONG"}, {"size", 3}}, stored), "")
      << "the unchanged name is ratcheted";
  EXPECT_EQ(UpdateErrors(stored, stored), "");
  EXPECT_EQ(UpdateErrors({{"name", "TOOLONG"}, {"size", 30}}, stored), "spec.size: must be <= 10")
      << "a changed member is validated";
  EXPECT_EQ(UpdateErrors({{"name", "LONGER"}, {"size", 1}}, stored),
            "spec.name: must be at most 5 characters long; spec.name: \"LONGER\" must match the "
            "pattern ^[a-z]+$");
  EXPECT_EQ(UpdateErrors({{"size", 1}}, stored), "spec.name: Required value")
      << "removing a member is a change of its parent";
}

TEST(Schema, AnUpdateChecksAChangedListForDuplicatesWhole) {
  const Json stored = {{"name", "abc"}, {"items", {{{"id", "x"}}, {{"id", "x"}}}}};
  EXPECT_EQ(UpdateErrors(stored, stored), "");
  Json grown = stored;
  grown["items"].push_back({{"id", "y"}});
  EXPECT_EQ(UpdateErrors(grown, stored), "spec.items[1]: Duplicate value: [\"x\"]");
}

TEST(Schema, AnUpdateRatchetsTheItemsOfAMapListByTheirKeys) {
  // Stored under an older schema that let n be a string.
  const Json stored = {{"name", "abc"}, {"items", {{{"id", "x"}, {"n", "seven"}}}}};
  Json grown = stored;
  grown["items"].insert(grown["items"].begin(), Json{{"id", "y"}, {"n", 1}});
  EXPECT_EQ(UpdateErrors(grown, stored), "") << "x is unchanged wherever it moved: ratcheted";
  Json changed = grown;
  changed["items"][1]["n"] = "eight";
  EXPECT_EQ(UpdateErrors(changed, stored), "spec.items[1].n: must be of type integer, got string")
      << "a changed item is validated";
  Json added = stored;
  added["items"].push_back({{"id", "z"}, {"n", "nine"}});
  EXPECT_EQ(UpdateErrors(added, stored), "spec.items[1].n: must be of type integer, got string")
      << "a new item is validated";
  Json keyless = stored;
  keyless["items"].push_back({{"n", "ten"}});
  EXPECT_EQ(UpdateErrors(keyless, stored), "spec.items[1].n: must be of type integer, got string");
}

}  // namespace
}  // namespace gpupool::openapi
