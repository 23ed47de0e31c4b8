// batch/v1 Jobs as the operator reads them: only what sizes their pods' gang.
#include <algorithm>

#include "gpupool/operator/cluster_view.h"

namespace gpupool::op {
namespace {

std::int32_t IntAt(const nlohmann::json& object, const char* section, const char* field,
                   std::int32_t fallback) {
  const auto part = object.find(section);
  if (part == object.end() || !part->is_object()) return fallback;
  const auto value = part->find(field);
  if (value == part->end() || !value->is_number_integer()) return fallback;
  return static_cast<std::int32_t>(
      std::clamp<std::int64_t>(value->get<std::int64_t>(), 0, 1 << 20));
}

}  // namespace

std::int32_t BatchJobObject::GangSize() const {
  std::int32_t size = parallelism;
  if (completions >= 0) size = std::min(size, completions);
  return std::max(size, 1);
}

BatchJobObject DecodeBatchJobObject(const nlohmann::json& object) {
  BatchJobObject job;
  const auto metadata = object.find("metadata");
  if (metadata != object.end() && metadata->is_object()) {
    for (auto [key, field] : {std::pair{"uid", &job.uid}, {"creationTimestamp", &job.created}}) {
      const auto value = metadata->find(key);
      if (value != metadata->end() && value->is_string()) *field = value->get<std::string>();
    }
  }
  job.parallelism = IntAt(object, "spec", "parallelism", 1);
  job.completions = IntAt(object, "spec", "completions", -1);
  return job;
}

}  // namespace gpupool::op
