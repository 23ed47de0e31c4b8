// manifests/ is rendered from the chart (scripts/render-manifests); rendering
// again must give the committed files, byte for byte.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "install_files.h"

namespace gpupool::install::testing {
namespace {

class TemporaryDir {
 public:
  TemporaryDir() {
    char pattern[] = "/tmp/gpupool-install-test-XXXXXX";
    if (mkdtemp(pattern)) path_ = pattern;
  }
  ~TemporaryDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(Manifests, AreWhatTheChartRenders) {
  SKIP_WITHOUT_HELM();
  TemporaryDir out;
  ASSERT_FALSE(out.path().empty());
  const auto result = RunInRepository("bash scripts/render-manifests " + out.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const char* file : {"crds.yaml", "gpupool.yaml"}) {
    const std::string committed =
        ReadText(sandbox::testing::SourcePath(std::string(kManifestsDir) + "/" + file));
    ASSERT_FALSE(committed.empty()) << file;
    EXPECT_EQ(ReadText(out.path() + "/" + file), committed)
        << "manifests/" << file << " differs from the chart: run scripts/render-manifests";
  }
}

// Every object lives in the release namespace, or (the reservation pods'
// identity) in the reservations' own; both are created first.
TEST(Manifests, HoldTheirNamespacesFirstAndEveryObjectInThem) {
  const auto objects = LoadManifests();
  ASSERT_FALSE(objects.empty());
  // crds.yaml sorts first; gpupool.yaml starts with the Namespace.
  EXPECT_EQ(objects.front()["kind"].as<std::string>(""), "CustomResourceDefinition");
  const std::string reservations = std::string(kNamespace) + "-reservations";
  for (const std::string& name : {std::string(kNamespace), reservations}) {
    ASSERT_TRUE(FindObject(objects, "Namespace", name).IsMap()) << name;
  }
  bool namespaces_seen = false;
  for (const auto& object : objects) {
    const YAML::Node namespace_field = object["metadata"]["namespace"];
    if (object["kind"].as<std::string>("") == "Namespace") {
      EXPECT_FALSE(namespaces_seen) << "a namespaced object comes before a Namespace";
      continue;
    }
    if (!namespace_field) continue;
    const std::string ns = namespace_field.as<std::string>();
    namespaces_seen = true;
    EXPECT_TRUE(ns == kNamespace || ns == reservations) << ns;
  }
}

}  // namespace
}  // namespace gpupool::install::testing
