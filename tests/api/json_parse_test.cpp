// ParseJson against nlohmann's own parser: the same value, or the same refusal,
// for edge cases, hostile text and random damage to a real API object.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "gpupool/json/parse.h"

namespace gpupool::json {
namespace {

using Json = nlohmann::json;

Json Reference(std::string_view text) {
  return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

// Equal values of the same types all the way down (nlohmann's == takes 1 and
// 1u, and 1 and 1.0, for equal).
bool SameValue(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(), other = b.begin(); it != a.end(); ++it, ++other) {
      if (it.key() != other.key() || !SameValue(*it, *other)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!SameValue(a[i], b[i])) return false;
    }
    return true;
  }
  return a.is_discarded() || a == b;
}

void ExpectLikeNlohmann(std::string_view text) {
  const Json fast = ParseJson(text);
  const Json reference = Reference(text);
  EXPECT_EQ(fast.is_discarded(), reference.is_discarded()) << text;
  EXPECT_TRUE(SameValue(fast, reference)) << text << "\n"
                                          << fast.dump() << "\n"
                                          << reference.dump();
}

const char* kPod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"job-7-0",
  "namespace":"load","uid":"6b1c2f0e-1d2a-4c1b-9b7e-3f1a2b3c4d5e","resourceVersion":"123456",
  "labels":{"gpupool.dev/job":"job-7","gpupool.dev/replica":"0"},
  "annotations":{"gpupool.dev/placement":"node-3:0","note":"caf\u00e9 \ud83d\ude80 \"q\" \\ \/"},
  "managedFields":[{"manager":"gpupool-controller","operation":"Update","apiVersion":"v1",
    "time":"2026-11-27T08:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{}}}]},
  "spec":{"nodeName":"node-3","priority":-5,"terminationGracePeriodSeconds":30,
    "containers":[{"name":"main","image":"trainer:1","command":["python","train.py"],
      "resources":{"limits":{"nvidia.com/gpu":"1"},"requests":{"cpu":0.5,"memory":"1Gi"}}}],
    "tolerations":[],"overhead":null,"hostNetwork":false},
  "status":{"phase":"Running","ratio":1.5e-3,"big":18446744073709551615,"conditions":[
    {"type":"Ready","status":"True"}]}})";

TEST(ParseJsonTest, BuildsTheValueNlohmannBuilds) {
  ExpectLikeNlohmann(kPod);
  for (const char* text : {"0",
                           "-1",
                           "1",
                           "9223372036854775807",
                           "9223372036854775808",
                           "-9223372036854775808",
                           "18446744073709551615",
                           "1.0",
                           "-0.0",
                           "1e2",
                           "1E-2",
                           "123.456e+7",
                           "true",
                           "false",
                           "null",
                           "\"\"",
                           "\"\\u0000\"",
                           "\"\\ud83d\\ude80\"",
                           "[]",
                           "{}",
                           "[[[[]]]]",
                           " \t\r\n{\"a\" : [1, -2, 3.5, \"x\", null, true, {}]} \n",
                           "{\"a\":1,\"a\":2}",
                           "{\"b\":1,\"a\":{\"c\":[]}}",
                           "\"caf\xc3\xa9\""}) {
    ExpectLikeNlohmann(text);
  }
}

TEST(ParseJsonTest, TypesIntegersAsNlohmannDoes) {
  EXPECT_TRUE(ParseJson("5").is_number_unsigned());
  EXPECT_TRUE(ParseJson("-5").is_number_integer());
  EXPECT_FALSE(ParseJson("-5").is_number_unsigned());
  EXPECT_TRUE(ParseJson("5.0").is_number_float());
  EXPECT_TRUE(ParseJson("18446744073709551615").is_number_unsigned());
}

TEST(ParseJsonTest, LeavesWhatSimdjsonRefusesToNlohmann) {
  // Beyond 64 bits: nlohmann's parser reads a float; nesting beyond 1,024 levels.
  ExpectLikeNlohmann("18446744073709551616");
  ExpectLikeNlohmann("-9223372036854775809");
  ExpectLikeNlohmann("[123456789012345678901234567890]");
  ExpectLikeNlohmann(std::string(2000, '[') + std::string(2000, ']'));
}

TEST(ParseJsonTest, RefusesWhatNlohmannRefuses) {
  for (const char* text : {"",
                           " ",
                           "{",
                           "}",
                           "[1,]",
                           "{\"a\":}",
                           "{\"a\" 1}",
                           "{a:1}",
                           "01",
                           "1.",
                           ".5",
                           "+1",
                           "-",
                           "1e",
                           "1 2",
                           "[1] x",
                           "tru",
                           "nul",
                           "'a'",
                           "\"\\x\"",
                           "\"\\u12\"",
                           "\"\\ud800\"",
                           "\"\\udc00\"",
                           "\"\\ud800\\u0041\"",
                           "\"a\nb\"",
                           "\"\x01\"",
                           "\"\xff\"",
                           "\"\xc3\"",
                           "\"\xed\xa0\x80\"",
                           "\"\xf4\x90\x80\x80\"",
                           "NaN",
                           "Infinity",
                           "[1,2",
                           "{\"a\":1,}"}) {
    ExpectLikeNlohmann(text);
  }
  ExpectLikeNlohmann(std::string_view("[1,\0 2]", 7));
  ExpectLikeNlohmann(std::string_view("\"a\0b\"", 5));
}

// Random damage to a real object: a byte dropped, replaced or inserted, a span
// repeated. Either both parsers refuse the text or both build the same value.
TEST(ParseJsonTest, AgreesWithNlohmannOnDamagedObjects) {
  const std::string pod = kPod;
  const std::string bytes = "{}[]\",:\\/ 0123456789.eE+-tfnul\x01\x7f\xc3\xa9\xff\xed";
  std::mt19937 random(20261127);
  for (int round = 0; round < 20000; ++round) {
    std::string text = pod;
    const int damages = 1 + static_cast<int>(random() % 3);
    for (int d = 0; d < damages && !text.empty(); ++d) {
      const std::size_t at = random() % text.size();
      const char byte = bytes[random() % bytes.size()];
      switch (random() % 4) {
        case 0:
          text.erase(at, 1);
          break;
        case 1:
          text[at] = byte;
          break;
        case 2:
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), byte);
          break;
        default:
          text.insert(at, text.substr(at, 1 + random() % 16));
      }
    }
    ExpectLikeNlohmann(text);
    if (HasFailure()) break;
  }
}

TEST(ParseJsonTest, ParsesADocumentLargerThanAThreadKeepsBuffersFor) {
  std::string list = "{\"items\":[";
  for (int i = 0; i < 200; ++i) list += std::string(i ? "," : "") + kPod;
  list += "]}";
  ASSERT_GT(list.size(), std::size_t{64} << 10);
  const Json parsed = ParseJson(list);
  ASSERT_FALSE(parsed.is_discarded());
  EXPECT_EQ(parsed["items"].size(), 200u);
  EXPECT_TRUE(SameValue(parsed, Reference(list)));
  EXPECT_TRUE(SameValue(ParseJson(kPod), Reference(kPod)));  // the thread's parser still serves
}

TEST(ParseJsonTest, ParseWithoutLeavesOutTheSameMembersEitherWay) {
  const std::vector<MemberPath> skipped = {{"metadata", "managedFields"}, {"spec", "*"}, {"x"}};
  Json expected = Reference(kPod);
  for (const auto& path : skipped) EraseMember(expected, path);
  EXPECT_TRUE(SameValue(ParseWithout(kPod, skipped), expected));
  // Nesting simdjson refuses goes through nlohmann's parser, with the same skips.
  const std::string deep = std::string(R"({"x":)") + std::string(1100, '[') +
                           std::string(1100, ']') + R"(,"y":[{"x":1}]})";
  EXPECT_EQ(ParseWithout(deep, skipped), Json::parse(R"({"y":[{"x":1}]})"));
}

}  // namespace
}  // namespace gpupool::json
