#include "json_fields.h"

#include <cmath>

#include "gpupool/json/quantity.h"

namespace gpupool::metrics::internal {

const op::Json& PlannedStatus(const op::StatusWrite& write) {
  static const op::Json kEmpty = op::Json::object();
  auto status = write.patch.find("status");
  return status != write.patch.end() && status->is_object() ? *status : kEmpty;
}

const std::string& StringField(const op::Json& object, const char* key) {
  static const std::string kEmpty;
  auto field = object.find(key);
  return field != object.end() && field->is_string() ? field->get_ref<const std::string&>()
                                                     : kEmpty;
}

std::optional<std::int64_t> MilliField(const op::Json& object, const char* key) {
  auto field = object.find(key);
  if (field == object.end()) return std::nullopt;
  if (field->is_number()) return std::llround(field->get<double>() * 1000);
  if (!field->is_string()) return std::nullopt;
  std::string error;
  return json::ParseMilli(field->get<std::string>(), &error);
}

std::string ConditionReason(const op::Json& status, const std::string& type) {
  auto conditions = status.find("conditions");
  if (conditions == status.end() || !conditions->is_array()) return "";
  for (const auto& condition : *conditions)
    if (condition.is_object() && StringField(condition, "type") == type)
      return StringField(condition, "reason");
  return "";
}

}  // namespace gpupool::metrics::internal
