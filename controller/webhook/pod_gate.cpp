#include "gpupool/webhook/pod_gate.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "encoding.h"
#include "gpupool/json/parse.h"
#include "gpupool/operator/pod_labels.h"
#include "gpupool/operator/pod_view.h"

namespace gpupool::webhook {
namespace {

using Json = nlohmann::json;

struct Verdict {
  bool allowed = true;
  std::string message;  // Why not.
  Json patch;           // A JSON Patch to apply; null for none.
};

Verdict Denied(std::string message) { return {false, std::move(message), nullptr}; }

const Json& Member(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  const auto found = object.find(key);
  return found == object.end() ? kNull : *found;
}

// A label's or annotation's value; nullopt when absent (or not a string).
std::optional<std::string> MetaValue(const Json& pod, const char* map, const char* key) {
  const Json& value = Member(Member(Member(pod, "metadata"), map), key);
  if (!value.is_string()) return std::nullopt;
  return value.get<std::string>();
}

// "metadata.labels[KEY]" or "metadata.annotations[KEY]": where MetaValue reads.
std::string MetaPath(const char* map, const char* key) {
  return std::string("metadata.") + map + "[" + key + "]";
}

bool HasGate(const Json& pod) {
  const Json& gates = Member(Member(pod, "spec"), "schedulingGates");
  if (!gates.is_array()) return false;
  return std::any_of(gates.begin(), gates.end(),
                     [](const Json& gate) { return Member(gate, "name") == op::kAdmissionGate; });
}

// The first bad opt-in value, as "FIELD: SENTENCE"; "" when all are good.
std::string OptInProblem(const Json& pod) {
  if (MetaValue(pod, "labels", op::kQueueLabel).value_or("").empty())
    return op::LabelPath(op::kQueueLabel) + ": must name a Queue";
  struct Check {
    const char* map;
    const char* key;
    std::string (*problem)(const std::string&);
  };
  for (const Check& check :
       {Check{"labels", op::kPodGroupSizeLabel, op::PodGroupSizeProblem},
        Check{"labels", op::kWorkloadClassLabel, op::WorkloadClassProblem},
        Check{"annotations", op::kFractionAnnotation, op::GpuFractionProblem}}) {
    const auto value = MetaValue(pod, check.map, check.key);
    if (!value) continue;
    const std::string problem = check.problem(*value);
    if (problem.empty()) continue;
    return MetaPath(check.map, check.key) + ": " + problem;
  }
  if (MetaValue(pod, "labels", op::kPodGroupSizeLabel) &&
      !MetaValue(pod, "labels", op::kPodGroupLabel))
    return op::LabelPath(op::kPodGroupLabel) + ": is required with " + op::kPodGroupSizeLabel;
  return "";
}

// The record only the controller writes: its annotation and its slot's label.
std::optional<std::string> RecordField(const Json& pod) {
  if (MetaValue(pod, "annotations", op::kAdmissionAnnotation))
    return op::AnnotationPath(op::kAdmissionAnnotation);
  if (MetaValue(pod, "labels", op::kReplicaLabel)) return op::LabelPath(op::kReplicaLabel);
  return std::nullopt;
}

Verdict OnCreate(const Json& pod) {
  if (!MetaValue(pod, "labels", op::kQueueLabel)) return {};  // Not opted in.
  if (const std::string problem = OptInProblem(pod); !problem.empty()) return Denied(problem);
  if (const auto field = RecordField(pod))
    return Denied(*field + ": is written by gpupool's controller only, never at creation");
  if (HasGate(pod)) return {};
  const Json gate = {{"name", op::kAdmissionGate}};
  const bool none = !Member(Member(pod, "spec"), "schedulingGates").is_array();
  Json operation =
      none ? Json{{"op", "add"}, {"path", "/spec/schedulingGates"}, {"value", Json::array({gate})}}
           : Json{{"op", "add"}, {"path", "/spec/schedulingGates/-"}, {"value", gate}};
  return {true, "", Json::array({operation})};
}

Verdict OnUpdate(const Json& old_pod, const Json& pod, bool record_writer) {
  if (record_writer) return {};
  if (HasGate(old_pod) && !HasGate(pod))
    return Denied("spec.schedulingGates: gpupool's gate " + std::string(op::kAdmissionGate) +
                  " is removed by gpupool's controller only, when the pod is admitted");
  for (const auto& [map, key] : {std::pair{"annotations", op::kAdmissionAnnotation},
                                 std::pair{"labels", op::kReplicaLabel}}) {
    if (MetaValue(old_pod, map, key) == MetaValue(pod, map, key)) continue;
    return Denied(MetaPath(map, key) + ": is written by gpupool's controller only");
  }
  return {};
}

Json ResponseOf(const std::string& uid, const Verdict& verdict) {
  Json response = {{"uid", uid}, {"allowed", verdict.allowed}};
  if (!verdict.allowed)
    response["status"] = {{"code", 403}, {"reason", "Forbidden"}, {"message", verdict.message}};
  if (!verdict.patch.is_null()) {
    response["patchType"] = "JSONPatch";
    response["patch"] = internal::EncodeBase64(verdict.patch.dump());
  }
  return {
      {"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"response", response}};
}

ReviewAnswer Refused(const std::string& why) { return {400, why + "\n"}; }

}  // namespace

ReviewAnswer ReviewPod(std::string_view body, const GateSettings& settings) {
  const Json review = json::ParseJson(body);
  if (review.is_discarded() || !review.is_object()) return Refused("the body is not JSON");
  if (Member(review, "apiVersion") != "admission.k8s.io/v1" ||
      Member(review, "kind") != "AdmissionReview")
    return Refused("apiVersion, kind: must be admission.k8s.io/v1, AdmissionReview");
  const Json& request = Member(review, "request");
  const Json& uid = Member(request, "uid");
  if (!uid.is_string() || uid.get<std::string>().empty())
    return Refused("request.uid: is required");
  const Json& kind = Member(request, "kind");
  if (Member(kind, "group") != "" || Member(kind, "kind") != "Pod")
    return Refused("request.kind: must be the core group's Pod");
  const Json& operation = Member(request, "operation");
  const Json& pod = Member(request, "object");
  if (!pod.is_object()) return Refused("request.object: must be the pod");
  Verdict verdict;
  if (operation == "CREATE") {
    verdict = OnCreate(pod);
  } else if (operation == "UPDATE") {
    const Json& username = Member(Member(request, "userInfo"), "username");
    const auto& writers = settings.record_writers;
    const bool writer =
        username.is_string() &&
        std::find(writers.begin(), writers.end(), username.get<std::string>()) != writers.end();
    verdict = OnUpdate(Member(request, "oldObject"), pod, writer);
  }
  return {200, ResponseOf(uid.get<std::string>(), verdict).dump()};
}

}  // namespace gpupool::webhook
