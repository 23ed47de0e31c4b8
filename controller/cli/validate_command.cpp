#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "gpupool/common/command.h"
#include "gpupool/json/yaml.h"
#include "object_check.h"

namespace gpupool::cli {
namespace {

constexpr char kValidateUsage[] =
    "Usage: gpupool validate FILE|DIR...\n\n"
    "Checks every Queue, Project, Department and TrainingJob in the given YAML files (or the\n"
    "*.yaml, *.yml and *.json files of a directory, as `kubectl apply -f` reads them)\n"
    "the way the API server does with kubectl's defaults: unknown fields refused,\n"
    "the CRD schema of crds/ (compiled in), the CRD's CEL rules; then gpupool's own\n"
    "rules. Prints each problem with its field path. An unknown kind of the\n"
    "gpupool.dev group is invalid; objects of other API groups are listed as skipped.\n"
    "Exits 1 when any object is invalid; 2 when an input is missing, empty or not\n"
    "YAML (the other inputs are still checked).\n";

struct Tally {
  int files = 0;
  int valid = 0;
  int invalid = 0;
  int skipped = 0;
  int input_errors = 0;
};

void InputError(const std::string& message, Tally& tally) {
  std::cerr << "gpupool validate: " << message << "\n";
  ++tally.input_errors;
}

bool IsManifest(const std::filesystem::path& path) {
  const auto extension = path.extension();
  return extension == ".yaml" || extension == ".yml" || extension == ".json";
}

// The files `kubectl apply -f` would read: the inputs, with each directory
// replaced by its manifests in name order (not recursively, as kubectl).
std::vector<std::string> ManifestFiles(Args inputs, Tally& tally) {
  std::vector<std::string> files;
  for (const auto& input : inputs) {
    std::error_code error;
    if (!std::filesystem::is_directory(input, error)) {
      files.push_back(input);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(input, error)) {
      if (entry.is_regular_file() && IsManifest(entry.path())) {
        found.push_back(entry.path().string());
      }
    }
    if (found.empty()) InputError(input + ": no .yaml, .yml or .json files to check", tally);
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

void Print(const std::string& file, const ObjectCheck& check, Tally& tally) {
  std::cout << file << ": " << check.label << ": ";
  switch (check.verdict) {
    case Verdict::kValid:
      std::cout << "valid (checked against: " << check.note << ")\n";
      ++tally.valid;
      return;
    case Verdict::kSkipped:
      std::cout << "skipped (" << check.note << ")\n";
      ++tally.skipped;
      return;
    case Verdict::kInvalid:
      std::cout << "INVALID, " << check.errors.size()
                << (check.errors.size() == 1 ? " error" : " errors")
                << (check.note.empty() ? "" : " (checked against: " + check.note + ")") << "\n";
      for (const auto& error : check.errors) std::cout << "  " << error.ToString() << "\n";
      ++tally.invalid;
      return;
  }
}

void ValidateFile(const std::string& file, Tally& tally) {
  std::vector<nlohmann::json> documents;
  try {
    documents = json::LoadYamlFile(file);
  } catch (const json::YamlError& error) {
    return InputError(error.what(), tally);
  }
  ++tally.files;
  if (documents.empty()) return InputError(file + ": no objects (the file is empty)", tally);
  for (const auto& document : documents) {
    for (const auto& check : CheckDocument(document)) Print(file, check, tally);
  }
}

void PrintSummary(const Tally& tally) {
  std::cout << "gpupool validate: " << tally.files << (tally.files == 1 ? " file" : " files")
            << ": " << tally.valid << " valid, " << tally.invalid << " invalid, " << tally.skipped
            << " skipped";
  if (tally.input_errors > 0) {
    std::cout << "; " << tally.input_errors
              << (tally.input_errors == 1 ? " input error" : " input errors") << " (above)";
  }
  std::cout << "\n";
}

}  // namespace

int RunValidate(Args args) {
  if (WantsHelp(args)) {
    std::cout << kValidateUsage;
    return 0;
  }
  if (args.empty()) {
    std::cerr << kValidateUsage;
    return 2;
  }
  Tally tally;
  for (const auto& file : ManifestFiles(args, tally)) ValidateFile(file, tally);
  PrintSummary(tally);
  if (tally.input_errors > 0) return 2;
  return tally.invalid == 0 ? 0 : 1;
}

}  // namespace gpupool::cli
