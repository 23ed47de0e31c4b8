#include "training_job_status.h"

#include <array>

#include "rules.h"

namespace gpupool::api {
namespace {

constexpr std::array<JobPhase, 7> kPhases = {
    JobPhase::kQueued,    JobPhase::kAdmitted, JobPhase::kRunning,  JobPhase::kPreempted,
    JobPhase::kSucceeded, JobPhase::kFailed,   JobPhase::kSuspended};

std::optional<JobPhase> ReadPhase(json::Reader& status) {
  auto name =
      ReadEnum(status, "phase",
               {"Queued", "Admitted", "Running", "Preempted", "Succeeded", "Failed", "Suspended"});
  if (!name) return std::nullopt;
  for (JobPhase phase : kPhases) {
    if (*name == JobPhaseName(phase)) return phase;
  }
  return std::nullopt;
}

std::vector<ReplicaPlacement> ReadPlacement(json::Reader& status) {
  std::vector<ReplicaPlacement> placement;
  status.ForEachItem("placement", [&](json::Reader& item) {
    ReplicaPlacement entry;
    entry.replica = item.Int32("replica", json::Presence::kRequired).value_or(0);
    entry.node = item.String("node", json::Presence::kRequired).value_or("");
    if (const Json* devices = item.Array("devices")) {
      for (size_t d = 0; d < devices->size(); ++d) {
        if ((*devices)[d].is_number_integer()) {
          entry.devices.push_back((*devices)[d].get<int32_t>());
        } else {
          status.errors().push_back({json::Child(item.PathOf("devices"), d), "must be an integer"});
        }
      }
    }
    placement.push_back(std::move(entry));
  });
  return placement;
}

}  // namespace

TrainingJobStatus ReadTrainingJobStatus(json::Reader& status) {
  TrainingJobStatus result;
  result.phase = ReadPhase(status);
  result.project = status.String("project").value_or("");
  result.conditions = ReadConditions(status);
  result.queued_time = status.String("queuedTime");
  result.admitted_time = status.String("admittedTime");
  result.start_time = status.String("startTime");
  result.completion_time = status.String("completionTime");
  result.preemption_count = status.Int32("preemptionCount").value_or(0);
  result.restart_count = status.Int32("restartCount").value_or(0);
  result.allocated_gpu = status.QuantityField("allocatedGpu");
  result.requested_gpu = status.QuantityField("requestedGpu");
  result.admitted_queue = status.String("admittedQueue").value_or("");
  result.over_quota = status.Bool("overQuota").value_or(false);
  result.placement = ReadPlacement(status);
  result.gpu_utilization_percent = status.Int32("gpuUtilizationPercent");
  result.observed_generation = status.Int("observedGeneration").value_or(0);
  return result;
}

Json TrainingJobStatusToJson(const TrainingJobStatus& status) {
  Json json = Json::object();
  if (status.phase) json["phase"] = JobPhaseName(*status.phase);
  if (!status.project.empty()) json["project"] = status.project;
  if (!status.conditions.empty()) json["conditions"] = ConditionsToJson(status.conditions);
  SetOrErase(json, "queuedTime", status.queued_time);
  SetOrErase(json, "admittedTime", status.admitted_time);
  SetOrErase(json, "startTime", status.start_time);
  SetOrErase(json, "completionTime", status.completion_time);
  if (status.preemption_count) json["preemptionCount"] = status.preemption_count;
  if (status.restart_count) json["restartCount"] = status.restart_count;
  if (status.allocated_gpu) json["allocatedGpu"] = status.allocated_gpu->ToJson();
  if (status.requested_gpu) json["requestedGpu"] = status.requested_gpu->ToJson();
  if (!status.admitted_queue.empty()) json["admittedQueue"] = status.admitted_queue;
  json["overQuota"] = status.over_quota;  // false too: a column shows false, not <none>.
  if (!status.placement.empty()) {
    Json list = Json::array();
    for (const auto& entry : status.placement) {
      list.push_back(
          {{"replica", entry.replica}, {"node", entry.node}, {"devices", entry.devices}});
    }
    json["placement"] = list;
  }
  if (status.gpu_utilization_percent)
    json["gpuUtilizationPercent"] = *status.gpu_utilization_percent;
  if (status.observed_generation) json["observedGeneration"] = status.observed_generation;
  return json;
}

const char* JobPhaseName(JobPhase phase) {
  switch (phase) {
    case JobPhase::kQueued:
      return "Queued";
    case JobPhase::kAdmitted:
      return "Admitted";
    case JobPhase::kRunning:
      return "Running";
    case JobPhase::kPreempted:
      return "Preempted";
    case JobPhase::kSucceeded:
      return "Succeeded";
    case JobPhase::kSuspended:
      return "Suspended";
    default:
      return "Failed";
  }
}

}  // namespace gpupool::api
