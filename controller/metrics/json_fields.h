// Reading the few status fields the metrics need out of planned status writes
// (merge patches of `status`, see op::StatusWrite).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gpupool/operator/plan.h"

namespace gpupool::metrics::internal {

// The patch's `status` object; an empty object when it has none.
const op::Json& PlannedStatus(const op::StatusWrite& write);
// The string at `key`, "" when absent or not a string (a reference: no copy).
const std::string& StringField(const op::Json& object, const char* key);
// A quantity written as a number or a string ("0.5", "500m"), in milli-units.
std::optional<std::int64_t> MilliField(const op::Json& object, const char* key);
// The reason of the condition of `type` in `status.conditions`, "" without one.
std::string ConditionReason(const op::Json& status, const std::string& type);

}  // namespace gpupool::metrics::internal
