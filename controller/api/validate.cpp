#include "gpupool/api/validate.h"

#include "gpupool/api/department.h"
#include "gpupool/api/project.h"
#include "gpupool/api/queue.h"
#include "gpupool/api/training_job.h"

namespace gpupool::api {

json::FieldErrors ValidateObject(const nlohmann::json& object) {
  json::FieldErrors errors;
  if (!object.is_object()) return {{"", "must be an object, got " + json::TypeName(object)}};
  const auto kind = object.value("kind", std::string());
  if (kind == "Queue") {
    DecodeQueue(object, errors);
  } else if (kind == "Project") {
    DecodeProject(object, errors);
  } else if (kind == "TrainingJob") {
    DecodeTrainingJob(object, errors);
  } else if (kind == "Department") {
    DecodeDepartment(object, errors);
  } else {
    errors.push_back(
        {"kind", "must be one of Queue, Project, TrainingJob, Department, got \"" + kind + "\""});
  }
  return errors;
}

}  // namespace gpupool::api
