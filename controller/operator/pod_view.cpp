#include "gpupool/operator/pod_view.h"

#include <charconv>

#include "gpupool/api/json_reader.h"
#include "gpupool/api/pod.h"

namespace gpupool::op {
namespace {

using nlohmann::json;

const json* Field(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string StringField(const json& object, const char* key) {
  const json* value = Field(object, key);
  return value && value->is_string() ? value->get<std::string>() : std::string();
}

std::int32_t ParseIndex(const std::string& text) {
  std::int32_t value = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && value >= 0 ? value : -1;
}

PodPhase ParsePhase(const std::string& phase) {
  if (phase == "Running") return PodPhase::kRunning;
  if (phase == "Succeeded") return PodPhase::kSucceeded;
  if (phase == "Failed") return PodPhase::kFailed;
  if (phase == "Unknown") return PodPhase::kUnknown;
  return PodPhase::kPending;
}

void ReadMetadata(const json& metadata, PodView& pod) {
  pod.ns = StringField(metadata, "namespace");
  pod.name = StringField(metadata, "name");
  pod.uid = StringField(metadata, "uid");
  pod.terminating = Field(metadata, "deletionTimestamp") != nullptr &&
                    !Field(metadata, "deletionTimestamp")->is_null();
  if (const json* labels = Field(metadata, "labels")) {
    pod.job = StringField(*labels, kJobLabel);
    pod.replica = ParseIndex(StringField(*labels, kReplicaLabel));
  }
  if (const json* owners = Field(metadata, "ownerReferences"); owners && owners->is_array()) {
    for (const json& owner : *owners) {
      const json* controller = Field(owner, "controller");
      if (controller && controller->is_boolean() && controller->get<bool>())
        pod.owner_uid = StringField(owner, "uid");
    }
  }
}

void ReadSpec(const json& object, const json& spec, PodView& pod) {
  pod.node = StringField(spec, "nodeName");
  if (const json* selector = Field(spec, "nodeSelector"); selector && selector->is_object()) {
    pod.pinned = StringField(*selector, kHostnameLabel);
    pod.has_node_selector = !selector->empty();
  }
  if (const json* gates = Field(spec, "schedulingGates"); gates && gates->is_array()) {
    pod.gates = static_cast<std::int32_t>(gates->size());
    for (std::size_t i = 0; i < gates->size(); ++i) {
      if (StringField((*gates)[i], "name") == kAdmissionGate)
        pod.gate_index = static_cast<std::int32_t>(i);
    }
  }
  api::FieldErrors ignored;
  api::Pod typed = api::DecodePod(object, ignored);
  pod.gpu_milli = typed.requests.gpu_milli;
}

void ReadStatus(const json& status, PodView& pod) {
  pod.phase = ParsePhase(StringField(status, "phase"));
  if (const json* conditions = Field(status, "conditions"); conditions && conditions->is_array()) {
    for (const json& condition : *conditions) {
      if (StringField(condition, "type") == "Ready")
        pod.ready = StringField(condition, "status") == "True";
    }
  }
}

}  // namespace

PodView DecodePodView(const json& object) {
  PodView pod;
  if (const json* metadata = Field(object, "metadata")) ReadMetadata(*metadata, pod);
  if (const json* spec = Field(object, "spec")) ReadSpec(object, *spec, pod);
  if (const json* status = Field(object, "status")) ReadStatus(*status, pod);
  return pod;
}

}  // namespace gpupool::op
