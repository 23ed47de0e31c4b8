// YAML documents to JSON values, with the YAML 1.2 core schema for plain
// scalars (quoted scalars always stay strings), as kubectl sends them; and a
// JSON value back to YAML, as `kubectl get -o yaml` prints it.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpupool::json {

class YamlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Every non-empty document of `text`, in order. Throws YamlError with the line
// and column of a syntax error; `source` names the input in that message.
std::vector<nlohmann::json> YamlToJson(const std::string& text, const std::string& source);

// Reads and converts a file; throws YamlError when it cannot be read.
std::vector<nlohmann::json> LoadYamlFile(const std::string& path);

// One block-style YAML document of `value` that YamlToJson reads back as the
// same value: a string that would read as a number, boolean or null ("0.5",
// "true") is quoted.
std::string ToYaml(const nlohmann::json& value);

}  // namespace gpupool::json
