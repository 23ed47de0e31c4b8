#include "gpupool/operator/cluster_view.h"

#include <algorithm>

namespace gpupool::op {
namespace {

// Spec errors only: paths under "status" are gpupool's own writing.
json::FieldErrors SpecErrors(json::FieldErrors errors) {
  std::erase_if(errors, [](const json::FieldError& error) {
    return error.path == "status" || error.path.rfind("status.", 0) == 0;
  });
  return errors;
}

template <typename T, typename DecodeFn>
Decoded<T> DecodeWith(const nlohmann::json& object, DecodeFn decode) {
  Decoded<T> decoded;
  json::FieldErrors errors;
  decoded.object = decode(object, errors);
  decoded.errors = SpecErrors(std::move(errors));
  return decoded;
}

}  // namespace

QueueObject DecodeQueueObject(const nlohmann::json& object) {
  return DecodeWith<api::Queue>(object, api::DecodeQueue);
}

ProjectObject DecodeProjectObject(const nlohmann::json& object) {
  return DecodeWith<api::Project>(object, api::DecodeProject);
}

DepartmentObject DecodeDepartmentObject(const nlohmann::json& object) {
  return DecodeWith<api::Department>(object, api::DecodeDepartment);
}

namespace {

// CPU and memory one replica asks for, read as a pod's requests are.
api::ResourceAmounts TemplateRequests(const nlohmann::json& pod_template) {
  if (!pod_template.is_object() || !pod_template.contains("spec")) return {};
  const nlohmann::json pod = {{"apiVersion", "v1"},
                              {"kind", "Pod"},
                              {"metadata", {{"name", "template"}}},
                              {"spec", pod_template["spec"]}};
  json::FieldErrors ignored;
  api::ResourceAmounts requests = api::DecodePod(pod, ignored).requests;
  requests.gpu_milli = 0;
  return requests;
}

}  // namespace

JobObject DecodeJobObject(const nlohmann::json& object) {
  JobObject job;
  // The controller only patches jobs: it needs no raw JSON to write back.
  static_cast<Decoded<api::TrainingJob>&>(job) = DecodeWith<api::TrainingJob>(
      object, [](const nlohmann::json& value, json::FieldErrors& errors) {
        return api::DecodeTrainingJob(value, errors, api::RawJson::kDrop);
      });
  job.requests = TemplateRequests(job.object.spec.pod_template);
  return job;
}

NodeObject DecodeNodeObject(const nlohmann::json& object) {
  json::FieldErrors ignored;
  api::Node node = api::DecodeNode(object, ignored);
  NodeObject view;
  view.name = node.metadata.name;
  view.labels = node.metadata.labels;
  view.gpus = node.allocatable.gpu_milli / 1000;
  view.cpu_milli = node.allocatable.cpu_milli;
  view.memory_bytes = node.allocatable.memory_bytes;
  view.ready = node.ready;
  view.unschedulable = node.unschedulable;
  return view;
}

}  // namespace gpupool::op
