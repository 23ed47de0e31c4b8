#include "gpupool/operator/pod_view.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "gpupool/api/pod.h"
#include "gpupool/json/quantity.h"
#include "gpupool/json/reader.h"

namespace gpupool::op {
namespace {

using Json = nlohmann::json;

const Json* Field(const Json& object, const char* key) { return json::Member(&object, key); }

std::string StringField(const Json& object, const char* key) {
  const Json* value = Field(object, key);
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

// One container's GPUs: its request, or its limit when it has no request (as
// the API server defaults requests from limits).
std::int64_t ContainerGpus(const Json& container) {
  const Json* resources = Field(container, "resources");
  if (!resources) return 0;
  for (const char* kind : {"requests", "limits"}) {
    const Json* list = Field(*resources, kind);
    const Json* amount = list ? Field(*list, api::kGpuResource) : nullptr;
    if (!amount) continue;
    std::string error;
    const std::string text = amount->is_string() ? amount->get<std::string>() : amount->dump();
    return json::ParseMilli(text, &error).value_or(0);
  }
  return 0;
}

}  // namespace

std::int64_t PodSpecGpuMilli(const Json& spec) {
  std::int64_t sum = 0, init = 0;
  if (const Json* containers = Field(spec, "containers"); containers && containers->is_array())
    for (const Json& container : *containers) sum += ContainerGpus(container);
  if (const Json* containers = Field(spec, "initContainers"); containers && containers->is_array())
    for (const Json& container : *containers) init = std::max(init, ContainerGpus(container));
  return std::max(sum, init);
}

namespace {

void ReadMetadata(const Json& metadata, PodView& pod) {
  pod.ns = StringField(metadata, "namespace");
  pod.name = StringField(metadata, "name");
  pod.uid = StringField(metadata, "uid");
  pod.terminating = Field(metadata, "deletionTimestamp") != nullptr &&
                    !Field(metadata, "deletionTimestamp")->is_null();
  if (const Json* labels = Field(metadata, "labels")) {
    pod.job = StringField(*labels, kJobLabel);
    pod.replica = ParseIndex(StringField(*labels, kReplicaLabel));
    pod.reservation_slot = ParseIndex(StringField(*labels, kReservationLabel));
  }
  if (const Json* annotations = Field(metadata, "annotations")) {
    pod.gpu_device = StringField(*annotations, kDeviceAnnotation);
  }
  if (const Json* annotations = Field(metadata, "annotations"))
    pod.idle_flagged = Field(*annotations, kIdleSinceAnnotation) != nullptr;
  if (const Json* owners = Field(metadata, "ownerReferences"); owners && owners->is_array()) {
    for (const Json& owner : *owners) {
      const Json* controller = Field(owner, "controller");
      if (controller && controller->is_boolean() && controller->get<bool>())
        pod.owner_uid = StringField(owner, "uid");
    }
  }
}

void ReadSpec(const Json& spec, PodView& pod) {
  pod.node = StringField(spec, "nodeName");
  if (const Json* selector = Field(spec, "nodeSelector"); selector && selector->is_object()) {
    pod.pinned = StringField(*selector, kHostnameLabel);
    pod.has_node_selector = !selector->empty();
  }
  if (const Json* gates = Field(spec, "schedulingGates"); gates && gates->is_array()) {
    pod.gates = static_cast<std::int32_t>(gates->size());
    for (std::size_t i = 0; i < gates->size(); ++i) {
      if (StringField((*gates)[i], "name") == kAdmissionGate)
        pod.gate_index = static_cast<std::int32_t>(i);
    }
  }
  pod.gpu_milli = PodSpecGpuMilli(spec);
}

// The termination message of the init container kReportContainer, once it
// exited 0; "" before, or when it failed.
std::string ReportedDevices(const Json& status) {
  const Json* statuses = Field(status, "initContainerStatuses");
  if (!statuses || !statuses->is_array()) return "";
  for (const Json& container : *statuses) {
    if (StringField(container, "name") != kReportContainer) continue;
    const Json* state = Field(container, "state");
    const Json* terminated = state ? Field(*state, "terminated") : nullptr;
    const Json* exit_code = terminated ? Field(*terminated, "exitCode") : nullptr;
    if (!exit_code || !exit_code->is_number_integer() || exit_code->get<std::int64_t>() != 0)
      return "";
    std::string message = StringField(*terminated, "message");
    while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back())))
      message.pop_back();
    return message;
  }
  return "";
}

void ReadStatus(const Json& status, PodView& pod) {
  pod.phase = ParsePhase(StringField(status, "phase"));
  pod.visible_devices = ReportedDevices(status);
  if (const Json* conditions = Field(status, "conditions"); conditions && conditions->is_array()) {
    for (const Json& condition : *conditions) {
      if (StringField(condition, "type") == "Ready")
        pod.ready = StringField(condition, "status") == "True";
    }
  }
}

void ReadOwner(const Json& metadata, PodRequest& request) {
  const Json* owners = Field(metadata, "ownerReferences");
  if (!owners || !owners->is_array()) return;
  for (const Json& owner : *owners) {
    const Json* controller = Field(owner, "controller");
    if (!controller || !controller->is_boolean() || !controller->get<bool>()) continue;
    request.owner_kind = StringField(owner, "kind");
    request.owner_api_version = StringField(owner, "apiVersion");
    request.owner_name = StringField(owner, "name");
  }
}

PodAdmission ReadAdmission(const Json& object) {
  const Json* status = Field(object, "status");
  const Json* conditions = status ? Field(*status, "conditions") : nullptr;
  if (!conditions || !conditions->is_array()) return {};
  for (const Json& condition : *conditions) {
    if (StringField(condition, "type") == kAdmittedCondition)
      return {StringField(condition, "status"), StringField(condition, "reason"),
              StringField(condition, "message")};
  }
  return {};
}

std::optional<api::TrainingJobStatus> ReadAdmissionRecord(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const Json record = Json::parse(text, nullptr, false);
  if (!record.is_object()) return std::nullopt;
  json::FieldErrors errors;
  api::TrainingJobStatus admission = api::DecodeTrainingJobStatus(record, errors);
  if (!errors.empty()) return std::nullopt;
  return admission;
}

// What a pod that asks gpupool to schedule it asks for: it carries the queue
// label and is neither a TrainingJob's pod nor a reservation pod.
std::shared_ptr<const PodRequest> ReadRequest(const Json& object, const PodView& pod) {
  const Json* metadata = Field(object, "metadata");
  const Json* labels = metadata ? Field(*metadata, "labels") : nullptr;
  if (!labels || !pod.job.empty() || pod.reservation_slot >= 0) return nullptr;
  auto request = std::make_shared<PodRequest>();
  request->queue = StringField(*labels, kQueueLabel);
  if (request->queue.empty()) return nullptr;
  request->group = StringField(*labels, kPodGroupLabel);
  request->group_size = StringField(*labels, kPodGroupSizeLabel);
  request->workload_class = StringField(*labels, kWorkloadClassLabel);
  if (const Json* annotations = Field(*metadata, "annotations");
      annotations && annotations->is_object()) {
    request->has_annotations = true;
    request->fraction = StringField(*annotations, kFractionAnnotation);
    request->admission_record =
        ReadAdmissionRecord(StringField(*annotations, kAdmissionAnnotation));
  }
  ReadOwner(*metadata, *request);
  request->created = StringField(*metadata, "creationTimestamp");
  request->admission = ReadAdmission(object);
  const Json* spec = Field(object, "spec");
  const Json* selector = spec ? Field(*spec, "nodeSelector") : nullptr;
  if (selector && selector->is_object()) {
    for (const auto& [key, value] : selector->items())
      if (value.is_string()) request->node_selector[key] = value.get<std::string>();
  }
  return request;
}

}  // namespace

PodView DecodePodView(const Json& object) {
  PodView pod;
  if (const Json* metadata = Field(object, "metadata")) ReadMetadata(*metadata, pod);
  if (const Json* spec = Field(object, "spec")) ReadSpec(*spec, pod);
  if (const Json* status = Field(object, "status")) ReadStatus(*status, pod);
  pod.request = ReadRequest(object, pod);
  return pod;
}

}  // namespace gpupool::op
