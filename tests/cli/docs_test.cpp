// The supported Kubernetes versions the documents state follow from the CRDs:
// one minimum, the same in README.md and docs/api.md, high enough for every
// feature crds/ uses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

std::string ReadSource(const std::string& relative) {
  std::ifstream file(std::string(GPUPOOL_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The oldest Kubernetes minor (1.x) whose API server accepts the CRDs.
int MinorTheCrdsNeed() {
  int minor = 16;  // apiextensions.k8s.io/v1
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(GPUPOOL_SOURCE_DIR) + "/crds")) {
    const std::string crd = ReadSource("crds/" + entry.path().filename().string());
    // x-kubernetes-validations[].fieldPath: 1.28.
    if (crd.find("fieldPath:") != std::string::npos) minor = std::max(minor, 28);
    // CEL quantity functions in new CRD rules: 1.29 (1.28 keeps CEL 1.27-compatible).
    if (crd.find("quantity(") != std::string::npos) minor = std::max(minor, 29);
  }
  return minor;
}

// Every "Kubernetes 1.N or later" / "Kubernetes 1.N and later" of a document.
std::set<int> StatedMinimums(const std::string& text) {
  static const std::regex kStatement(R"(Kubernetes 1\.(\d+) (or|and) later)");
  std::set<int> minors;
  for (std::sregex_iterator it(text.begin(), text.end(), kStatement), end; it != end; ++it) {
    minors.insert(std::stoi((*it)[1]));
  }
  return minors;
}

TEST(Docs, StateOneSupportedKubernetesMinimumThatTheCrdsAllow) {
  const int needed = MinorTheCrdsNeed();
  for (const char* document : {"README.md", "docs/api.md"}) {
    SCOPED_TRACE(document);
    EXPECT_EQ(StatedMinimums(ReadSource(document)), std::set<int>{needed})
        << "the CRDs need Kubernetes 1." << needed;
  }
  EXPECT_THAT(ReadSource("docs/api.md"), ::testing::HasSubstr("## Supported Kubernetes versions"));
}

}  // namespace
