// The kinds gpupool serves, read once from the CRDs compiled into the binary:
// what `gpupool validate` checks objects against, as the API server would.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::cli {

struct ServedKind {
  std::string kind;         // "TrainingJob"
  std::string api_version;  // "gpupool.dev/v1alpha1"
  bool namespaced = false;
  nlohmann::json schema;  // the version's openAPIV3Schema
};

// Every kind of the embedded CRDs, one entry per served version.
const std::vector<ServedKind>& ServedKinds();

// The served kind named `kind` (any version), or nullptr.
const ServedKind* FindServedKind(std::string_view kind);

// "Queue, Project, TrainingJob": for messages naming what is served.
std::string ServedKindNames();

}  // namespace gpupool::cli
