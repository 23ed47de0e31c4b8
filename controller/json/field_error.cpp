#include "gpupool/json/field_error.h"

namespace gpupool::json {

std::string FieldError::ToString() const { return path.empty() ? message : path + ": " + message; }

std::string JoinErrors(const FieldErrors& errors) {
  std::string joined;
  for (const auto& error : errors) {
    if (!joined.empty()) joined += "; ";
    joined += error.ToString();
  }
  return joined;
}

std::string Child(std::string_view parent, std::string_view field) {
  if (parent.empty()) return std::string(field);
  return std::string(parent) + "." + std::string(field);
}

std::string Child(std::string_view parent, size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

}  // namespace gpupool::json
