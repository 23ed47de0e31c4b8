#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "gpupool/json/dump.h"

namespace gpupool::json {
namespace {

using Json = nlohmann::json;

TEST(Dump, WritesWhatNlohmannWrites) {
  const std::vector<Json> values = {nullptr,
                                    true,
                                    false,
                                    0,
                                    -1,
                                    42,
                                    std::numeric_limits<int64_t>::min(),
                                    std::numeric_limits<uint64_t>::max(),
                                    0.0,
                                    -0.0,
                                    1.0,
                                    0.1,
                                    -2.5e-300,
                                    1e300,
                                    3.14159,
                                    std::numeric_limits<double>::infinity(),
                                    std::nan(""),
                                    "",
                                    "plain",
                                    "quote \" and \\",
                                    "controls \b\f\n\r\t \x01\x1f\x7f",
                                    "/slash",
                                    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                                    Json::object(),
                                    Json::array(),
                                    Json::parse(R"({"b": [1, {"x": null}], "a": {"": ""}})"),
                                    Json::binary({1, 2, 3})};
  for (const auto& value : values) EXPECT_EQ(Dump(value), value.dump()) << value.dump();
}

TEST(Dump, RefusesInvalidUtf8AsNlohmannDoes) {
  const Json bad = {{"k", std::string("a\xff")}};
  EXPECT_THROW(bad.dump(), Json::type_error);
  EXPECT_THROW(Dump(bad), Json::type_error);
  const Json bad_key = {{std::string("\xc3"), 1}};
  EXPECT_THROW(Dump(bad_key), Json::type_error);
}

// Random documents of every kind of value, strings drawn from bytes that
// need escaping, multi-byte characters and plain text.
Json RandomValue(std::mt19937& random, int depth) {
  std::uniform_int_distribution<int> kind(0, depth > 3 ? 5 : 7);
  auto text = [&] {
    static const std::vector<std::string> pieces = {
        "a", "Z", "\"", "\\", "\n", "\x02", "\x7f", "\xc3\xa9", "\xe2\x82\xac", " ", "/", "0"};
    std::string out;
    for (int i = std::uniform_int_distribution<int>(0, 6)(random); i > 0; --i) {
      out += pieces[random() % pieces.size()];
    }
    return out;
  };
  switch (kind(random)) {
    case 0:
      return nullptr;
    case 1:
      return random() % 2 == 0;
    case 2:
      return static_cast<int64_t>(random()) - (1LL << 31);
    case 3:
      return std::uniform_real_distribution<double>(-1e6, 1e6)(random);
    case 4:
    case 5:
      return text();
    case 6: {
      Json object = Json::object();
      for (int i = random() % 5; i > 0; --i) object[text()] = RandomValue(random, depth + 1);
      return object;
    }
    default: {
      Json array = Json::array();
      for (int i = random() % 5; i > 0; --i) array.push_back(RandomValue(random, depth + 1));
      return array;
    }
  }
}

TEST(Dump, RandomDocumentsMatch) {
  std::mt19937 random(7);
  for (int i = 0; i < 2000; ++i) {
    const Json value = RandomValue(random, 0);
    ASSERT_EQ(Dump(value), value.dump());
  }
}

}  // namespace
}  // namespace gpupool::json
