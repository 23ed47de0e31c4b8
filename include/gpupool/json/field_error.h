// Field-path errors: every rejection names the field it is about, the way the
// Kubernetes API server does ("spec.quotas[1].gpu: must be >= 0").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpupool::json {

struct FieldError {
  std::string path;     // e.g. "spec.quotas[1].gpu"; empty for the whole object
  std::string message;  // e.g. "must be >= 0"

  std::string ToString() const;
  bool operator==(const FieldError&) const = default;
};

using FieldErrors = std::vector<FieldError>;

// "path: message; path: message" for logs, Events and HTTP error bodies.
std::string JoinErrors(const FieldErrors& errors);

// Builds child paths: Child(Child("spec", "quotas"), 1) == "spec.quotas[1]".
std::string Child(std::string_view parent, std::string_view field);
std::string Child(std::string_view parent, size_t index);

}  // namespace gpupool::json
