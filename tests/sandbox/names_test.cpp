#include "sandbox/store/names.h"

#include <gtest/gtest.h>

#include <random>
#include <regex>

namespace gpupool::sandbox {
namespace {

// The API server's own expressions, as the reference.
bool SubdomainByRegex(const std::string& name) {
  static const std::regex kSubdomain(
      R"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)");
  return !name.empty() && name.size() <= 253 && std::regex_match(name, kSubdomain);
}

bool QualifiedNameByRegex(const std::string& key) {
  static const std::regex kName(R"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])");
  const auto slash = key.find('/');
  const std::string name = slash == std::string::npos ? key : key.substr(slash + 1);
  if (slash != std::string::npos && !SubdomainByRegex(key.substr(0, slash))) return false;
  return !name.empty() && name.size() <= 63 && std::regex_match(name, kName);
}

bool Dns1123LabelByRegex(const std::string& name) {
  static const std::regex kLabel(R"([a-z0-9]([-a-z0-9]*[a-z0-9])?)");
  return name.size() <= 63 && std::regex_match(name, kLabel);
}

bool Dns1035LabelByRegex(const std::string& name) {
  static const std::regex kLabel(R"([a-z]([-a-z0-9]*[a-z0-9])?)");
  return name.size() <= 63 && std::regex_match(name, kLabel);
}

bool LabelValueByRegex(const std::string& value) {
  static const std::regex kValue(R"((([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?)");
  return value.size() <= 63 && std::regex_match(value, kValue);
}

TEST(Names, KnownCases) {
  EXPECT_TRUE(IsDns1123Subdomain("job-1.train"));
  EXPECT_FALSE(IsDns1123Subdomain("Job"));
  EXPECT_FALSE(IsDns1123Subdomain("a..b"));
  EXPECT_FALSE(IsDns1123Subdomain("-a"));
  EXPECT_FALSE(IsDns1123Subdomain(""));
  EXPECT_FALSE(IsDns1123Subdomain(std::string(254, 'a')));
  EXPECT_TRUE(IsQualifiedName("gpupool.dev/job"));
  EXPECT_TRUE(IsQualifiedName("A_b.c"));
  EXPECT_FALSE(IsQualifiedName("gpupool.dev/"));
  EXPECT_FALSE(IsQualifiedName("/job"));
  EXPECT_FALSE(IsQualifiedName("a/b/c"));
  EXPECT_FALSE(IsQualifiedName(std::string(64, 'a')));
  EXPECT_TRUE(IsLabelValue(""));
  EXPECT_TRUE(IsLabelValue("v1.2_x"));
  EXPECT_FALSE(IsLabelValue("v1."));
  EXPECT_FALSE(IsLabelValue(std::string(64, 'a')));
  EXPECT_TRUE(IsDns1123Label("1digit"));
  EXPECT_FALSE(IsDns1123Label("dotted.name"));
  EXPECT_FALSE(IsDns1123Label(std::string(64, 'a')));
  EXPECT_TRUE(IsDns1035Label("web-1"));
  EXPECT_FALSE(IsDns1035Label("1digit"));
  EXPECT_FALSE(IsDns1035Label("web-"));
}

TEST(Names, AgreeWithTheRegularExpressions) {
  std::mt19937 random(11);
  const std::string alphabet = "az09AZ-_./ ";
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int length = static_cast<int>(random() % (i % 50 == 0 ? 300 : 12));
    for (int j = 0; j < length; ++j) text += alphabet[random() % alphabet.size()];
    ASSERT_EQ(IsDns1123Subdomain(text), SubdomainByRegex(text)) << text;
    ASSERT_EQ(IsQualifiedName(text), QualifiedNameByRegex(text)) << text;
    ASSERT_EQ(IsLabelValue(text), LabelValueByRegex(text)) << text;
    ASSERT_EQ(IsDns1123Label(text), Dns1123LabelByRegex(text)) << text;
    ASSERT_EQ(IsDns1035Label(text), Dns1035LabelByRegex(text)) << text;
  }
}

}  // namespace
}  // namespace gpupool::sandbox
