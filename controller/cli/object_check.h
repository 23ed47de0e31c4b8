// What `gpupool validate` concludes about one object: the checks the API
// server applies when `kubectl apply` sends it (strict fields, the CRD's
// OpenAPI schema, its CEL rules) and the rules only gpupool enforces.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpupool/json/field_error.h"

namespace gpupool::cli {

enum class Verdict { kValid, kInvalid, kSkipped };

struct ObjectCheck {
  std::string label;  // "TrainingJob susan/resnet"
  Verdict verdict = Verdict::kValid;
  std::string note;  // what was checked, or why the object was not
  json::FieldErrors errors;
};

// The checks of what gpupool validates: named in every `valid` line.
inline constexpr char kCheckedRules[] = "CRD schema, CEL rules, gpupool rules";

// Checks one YAML document; a v1 List gives one result per item. Objects of
// other API groups are skipped; an unknown kind of gpupool's group is invalid,
// as the API server refuses it.
std::vector<ObjectCheck> CheckDocument(const nlohmann::json& document);

}  // namespace gpupool::cli
