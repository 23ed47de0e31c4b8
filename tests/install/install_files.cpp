#include "install_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpupool::install::testing {

bool HelmFound() { return RunInRepository("command -v helm").exit_code == 0; }

CommandResult RunInRepository(const std::string& command_line) {
  return sandbox::testing::RunCommand("cd '" + sandbox::testing::SourcePath("") + "' && " +
                                      command_line);
}

CommandResult Helm(const std::string& arguments) { return RunInRepository("helm " + arguments); }

std::string ReadText(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::vector<YAML::Node> LoadDocuments(const std::string& yaml_text) {
  std::vector<YAML::Node> documents;
  for (const auto& document : YAML::LoadAll(yaml_text)) {
    if (document.IsMap()) documents.push_back(document);
  }
  return documents;
}

std::vector<YAML::Node> LoadManifests() {
  std::vector<std::string> files;
  const std::string dir = sandbox::testing::SourcePath(kManifestsDir);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());  // kubectl's order
  std::vector<YAML::Node> objects;
  for (const auto& file : files) {
    for (const auto& object : LoadDocuments(ReadText(file))) objects.push_back(object);
  }
  return objects;
}

YAML::Node FindObject(const std::vector<YAML::Node>& objects, const std::string& kind,
                      const std::string& name) {
  for (const auto& object : objects) {
    if (object["kind"].as<std::string>("") != kind) continue;
    if (!name.empty() && object["metadata"]["name"].as<std::string>("") != name) continue;
    return object;
  }
  return YAML::Node();
}

}  // namespace gpupool::install::testing
