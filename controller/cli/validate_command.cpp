#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "gpupool/api/validate.h"
#include "gpupool/api/yaml.h"
#include "gpupool/cli/command.h"

namespace gpupool::cli {
namespace {

constexpr char kUsage[] =
    "Usage: gpupool validate FILE|DIR...\n\n"
    "Checks every Queue, Project and TrainingJob in the given YAML files (or the\n"
    "*.yaml files of a directory) against the gpupool API rules and prints each\n"
    "problem with its field path. Other kinds are listed and skipped.\n"
    "Exits 1 when any object is invalid, 2 on unreadable input.\n";

std::vector<std::string> YamlFiles(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const auto& input : inputs) {
    if (!std::filesystem::is_directory(input)) {
      files.push_back(input);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(input)) {
      const auto extension = entry.path().extension();
      if (extension == ".yaml" || extension == ".yml") found.push_back(entry.path().string());
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

// Prints one line per object; returns the number of invalid objects.
int ValidateDocuments(const std::string& file, const std::vector<nlohmann::json>& documents) {
  int invalid = 0;
  for (const auto& document : documents) {
    const std::string kind = document.is_object() ? document.value("kind", "") : "";
    std::string name;
    if (document.is_object() && document.contains("metadata") && document["metadata"].is_object()) {
      name = document["metadata"].value("name", "");
    }
    if (kind != "Queue" && kind != "Project" && kind != "TrainingJob") {
      std::cout << file << ": " << (kind.empty() ? "(no kind)" : kind) << " " << name
                << ": skipped (not a gpupool kind)\n";
      continue;
    }
    auto errors = api::ValidateObject(document);
    std::cout << file << ": " << kind << " " << name << ": "
              << (errors.empty() ? "valid" : "INVALID") << "\n";
    for (const auto& error : errors) std::cout << "  " << error.ToString() << "\n";
    invalid += errors.empty() ? 0 : 1;
  }
  return invalid;
}

}  // namespace

int RunValidate(Args args) {
  if (WantsHelp(args)) {
    std::cout << kUsage;
    return 0;
  }
  if (args.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  int invalid = 0;
  for (const auto& file : YamlFiles({args.begin(), args.end()})) {
    try {
      invalid += ValidateDocuments(file, api::LoadYamlFile(file));
    } catch (const api::YamlError& error) {
      std::cerr << "gpupool validate: " << error.what() << "\n";
      return 2;
    }
  }
  return invalid == 0 ? 0 : 1;
}

}  // namespace gpupool::cli
