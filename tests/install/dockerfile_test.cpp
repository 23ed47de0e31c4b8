// The Dockerfile's runtime stage installs the package of every shared library
// the built binary links directly (the image itself cannot be built here).
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "install_files.h"

namespace gpupool::install::testing {
namespace {

using sandbox::testing::RunCommand;

// debian:12-slim has these already.
const std::set<std::string> kInBaseImage = {"libc6", "libstdc++6", "libgcc-s1"};

std::string DockerfileText() { return ReadText(sandbox::testing::SourcePath("Dockerfile")); }

// The words of the runtime stage's `apt-get install` (the last FROM on).
std::string RuntimeInstallList() {
  const std::string text = DockerfileText();
  const std::string runtime = text.substr(text.rfind("\nFROM "));
  const auto start = runtime.find("--no-install-recommends");
  if (start == std::string::npos) return "";
  return runtime.substr(start, runtime.find("&&", start) - start);
}

// The library packages of the runtime stage's `apt-get install`.
std::set<std::string> RuntimePackages() {
  std::set<std::string> packages;
  const std::regex package(R"(\b(lib[a-z0-9.+-]+)\b)");
  const std::string list = RuntimeInstallList();
  for (std::sregex_iterator it(list.begin(), list.end(), package), stop; it != stop; ++it)
    packages.insert(it->str(1));
  return packages;
}

// library name -> resolved path, for the libraries the binary names (NEEDED).
std::map<std::string, std::string> DirectLibraries() {
  std::set<std::string> needed;
  std::istringstream dynamic(RunCommand(std::string("readelf -d ") + GPUPOOL_BINARY).output);
  const std::regex needed_line(R"(\(NEEDED\).*\[(.+)\])");
  std::smatch match;
  for (std::string line; std::getline(dynamic, line);) {
    if (std::regex_search(line, match, needed_line)) needed.insert(match[1]);
  }
  std::map<std::string, std::string> paths;
  std::istringstream resolved(RunCommand(std::string("ldd ") + GPUPOOL_BINARY).output);
  const std::regex ldd_line(R"(^\s*(\S+) => (\S+))");
  for (std::string line; std::getline(resolved, line);) {
    if (std::regex_search(line, match, ldd_line) && needed.count(match[1]))
      paths[match[1]] = match[2];
  }
  return paths;
}

TEST(Dockerfile, RuntimeStageInstallsEveryLibraryTheBinaryLinks) {
  if (RunCommand("command -v dpkg && command -v readelf && command -v ldd").exit_code != 0)
    GTEST_SKIP() << "dpkg, readelf or ldd missing: cannot tell the binary's packages";
  const auto packages = RuntimePackages();
  ASSERT_GE(packages.size(), 5u);
  const auto libraries = DirectLibraries();
  ASSERT_GE(libraries.size(), 5u) << "readelf/ldd of " << GPUPOOL_BINARY;
  for (const auto& [name, path] : libraries) {
    // dpkg knows a library by the path its package installed: the one ldd
    // shows, or, past the /lib -> /usr/lib link, the resolved one.
    const auto owner =
        RunCommand("dpkg -S " + path + " 2>/dev/null || dpkg -S \"$(readlink -f " + path + ")\"");
    ASSERT_EQ(owner.exit_code, 0) << name << ": " << owner.output;
    const std::string package = owner.output.substr(0, owner.output.find_first_of(":"));
    EXPECT_TRUE(packages.count(package) || kInBaseImage.count(package))
        << name << " comes from " << package
        << ", which the Dockerfile's runtime stage does not install";
  }
}

// libcurl verifies an https --gpu-metrics-url against the system's CA bundle,
// which debian:12-slim lacks (and --no-install-recommends would not pull in).
TEST(Dockerfile, RuntimeStageInstallsCaCertificates) {
  const std::string list = RuntimeInstallList();
  ASSERT_FALSE(list.empty()) << "no apt-get install in the Dockerfile's runtime stage";
  EXPECT_TRUE(std::regex_search(list, std::regex(R"((^|\s)ca-certificates(\s|\\|$))")))
      << "the runtime stage installs: " << list;
}

// Every stage names its base image with a version: a tag other than latest,
// or a digest (docs/operations.md says how to pin one).
bool NamesAVersion(const std::string& image) {
  if (image.find("@sha256:") != std::string::npos) return true;
  const std::string name = image.substr(image.rfind('/') + 1);  // past a registry's port
  const auto colon = name.find(':');
  return colon != std::string::npos && name.substr(colon + 1) != "latest";
}

// FROM's image, with a ${NAME} taken from the ARG NAME=default before it.
TEST(Dockerfile, BaseImagesNameAVersion) {
  std::istringstream lines(DockerfileText());
  const std::regex arg(R"(^ARG\s+([A-Z_]+)=(\S+))"), from(R"(^FROM\s+(\S+))");
  const std::regex reference(R"(^\$\{([A-Z_]+)\}$)");
  std::map<std::string, std::string> defaults;
  int stages = 0;
  std::smatch match;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, match, arg)) defaults[match[1]] = match[2];
    if (!std::regex_search(line, match, from)) continue;
    ++stages;
    std::string image = match[1];
    if (std::regex_match(image, match, reference)) image = defaults[match[1]];
    EXPECT_TRUE(NamesAVersion(image)) << line << ": \"" << image << "\" names no version";
  }
  EXPECT_EQ(stages, 2);
}

}  // namespace
}  // namespace gpupool::install::testing
