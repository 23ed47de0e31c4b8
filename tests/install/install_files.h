// Shared by the install tests: the chart and manifests/ in the repository,
// helm run on them, and the rendered objects read back as YAML.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "sandbox_process.h"

namespace gpupool::install::testing {

using sandbox::testing::CommandResult;

inline constexpr char kChart[] = "helm/gpupool";
inline constexpr char kManifestsDir[] = "manifests";
inline constexpr char kNamespace[] = "gpupool-system";

// Whether `helm` is on PATH; tests that need it skip, saying so, when not.
bool HelmFound();
#define SKIP_WITHOUT_HELM()                                                               \
  if (!::gpupool::install::testing::HelmFound())                                          \
  GTEST_SKIP() << "helm is not on PATH (scripts/install-deps installs it); the chart is " \
                  "not checked"

// Runs a shell command line in the repository.
CommandResult RunInRepository(const std::string& command_line);
// `helm <arguments>` in the repository.
CommandResult Helm(const std::string& arguments);

std::string ReadText(const std::string& path);
// Every document of a YAML file or text, empty ones (comments only) left out.
std::vector<YAML::Node> LoadDocuments(const std::string& yaml_text);
std::vector<YAML::Node> LoadManifests();  // manifests/*.yaml, in apply order
// The one object of `kind` (and `name`, when given) among `objects`; a null
// node when there is none.
YAML::Node FindObject(const std::vector<YAML::Node>& objects, const std::string& kind,
                      const std::string& name = "");

}  // namespace gpupool::install::testing
