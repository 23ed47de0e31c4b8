// Valid objects of each kind, and helpers to read the repository's YAML.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpupool::api::testing {

using Json = nlohmann::json;

Json ValidTrainingJob();
Json ValidProject();
Json ValidQueue();
Json ValidDepartment();

std::string SourcePath(const std::string& relative);
// Every *.yaml file of a repository folder, sorted.
std::vector<std::string> YamlFilesIn(const std::string& relative_dir);

}  // namespace gpupool::api::testing
