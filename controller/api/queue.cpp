#include "gpupool/api/queue.h"

#include <algorithm>

#include "rules.h"

namespace gpupool::api {
namespace {

std::optional<IdlePolicy> ReadIdlePolicy(json::Reader& spec) {
  const Json* idle = spec.Object("idle");
  if (!idle) return std::nullopt;
  json::Reader reader(*idle, spec, "idle");
  IdlePolicy policy;
  const auto percent = ReadMinimum(reader, "utilizationBelowPercent", 1, json::Presence::kRequired);
  if (percent && *percent > 100) reader.Error("utilizationBelowPercent", "must be <= 100");
  policy.utilization_below_percent =
      static_cast<int32_t>(std::min<int64_t>(percent.value_or(0), 100));
  policy.for_seconds = ReadMinimum(reader, "forSeconds", 1, json::Presence::kRequired).value_or(0);
  if (auto action = ReadEnum(reader, "action", {"Preempt", "Annotate"}))
    policy.action = *action == "Preempt" ? IdleAction::kPreempt : IdleAction::kAnnotate;
  return policy;
}

QueueSpec ReadQueueSpec(json::Reader& spec) {
  QueueSpec result;
  result.node_selector = spec.StringMap("nodeSelector");
  if (auto sharing = ReadEnum(spec, "sharing", {"Fixed", "Guaranteed"})) {
    result.sharing = *sharing == "Fixed" ? Sharing::kFixed : Sharing::kGuaranteed;
  }
  if (const Json* preemption = spec.Object("preemption")) {
    json::Reader reader(*preemption, spec, "preemption");
    result.preemption.min_runtime_seconds = ReadMinimum(reader, "minRuntimeSeconds", 0).value_or(0);
    result.preemption.grace_period_seconds =
        ReadMinimum(reader, "gracePeriodSeconds", 0).value_or(30);
    result.preemption.reclaim_wait_seconds =
        ReadMinimum(reader, "reclaimWaitSeconds", 0).value_or(0);
    result.preemption.reclaim_max_runtime_seconds =
        ReadMinimum(reader, "reclaimMaxRuntimeSeconds", 0).value_or(0);
    const auto immediate = ReadMinimum(reader, "immediateGuaranteePercent", 0);
    if (immediate && *immediate > 100) reader.Error("immediateGuaranteePercent", "must be <= 100");
    result.preemption.immediate_guarantee_percent =
        static_cast<int32_t>(std::min<int64_t>(immediate.value_or(50), 100));
  }
  result.idle = ReadIdlePolicy(spec);
  return result;
}

std::vector<QueueProjectUsage> ReadProjectUsage(json::Reader& status) {
  std::vector<QueueProjectUsage> usage;
  status.ForEachItem("projects", [&](json::Reader& item) {
    QueueProjectUsage entry;
    entry.project = item.String("project", json::Presence::kRequired).value_or("");
    entry.gpu = ReadGpuUsage(item);
    usage.push_back(std::move(entry));
  });
  return usage;
}

QueueStatus ReadQueueStatus(json::Reader& status) {
  QueueStatus result;
  result.observed_generation = status.Int("observedGeneration").value_or(0);
  result.capacity = status.QuantityField("capacity");
  result.largest_node = status.QuantityField("largestNode");
  result.guaranteed = status.QuantityField("guaranteed");
  result.allocated = status.QuantityField("allocated");
  result.over_quota = status.QuantityField("overQuota");
  result.running_jobs = status.Int32("runningJobs").value_or(0);
  result.pending_jobs = status.Int32("pendingJobs").value_or(0);
  result.projects = ReadProjectUsage(status);
  result.conditions = ReadConditions(status);
  return result;
}

Json StatusToJson(const QueueStatus& status) {
  Json json = Json::object();
  if (status.observed_generation) json["observedGeneration"] = status.observed_generation;
  if (status.capacity) json["capacity"] = status.capacity->ToJson();
  if (status.largest_node) json["largestNode"] = status.largest_node->ToJson();
  if (status.guaranteed) json["guaranteed"] = status.guaranteed->ToJson();
  if (status.allocated) json["allocated"] = status.allocated->ToJson();
  if (status.over_quota) json["overQuota"] = status.over_quota->ToJson();
  if (status.running_jobs) json["runningJobs"] = status.running_jobs;
  if (status.pending_jobs) json["pendingJobs"] = status.pending_jobs;
  Json projects = Json::array();
  for (const auto& p : status.projects) {
    Json item = {{"project", p.project}};
    WriteGpuUsage(p.gpu, item);
    projects.push_back(std::move(item));
  }
  if (!projects.empty()) json["projects"] = projects;
  if (!status.conditions.empty()) json["conditions"] = ConditionsToJson(status.conditions);
  return json;
}

}  // namespace

const char* SharingName(Sharing sharing) {
  return sharing == Sharing::kFixed ? "Fixed" : "Guaranteed";
}

const char* IdleActionName(IdleAction action) {
  return action == IdleAction::kPreempt ? "Preempt" : "Annotate";
}

Queue DecodeQueue(const Json& object, json::FieldErrors& errors) {
  return DecodeKind<Queue>(object, errors, "Queue", json::Presence::kOptional, ReadQueueSpec,
                           ReadQueueStatus);
}

Json ToJson(const Queue& queue) {
  Json json = ObjectJsonBase(queue.raw, "Queue", queue.metadata);
  Json& spec = json["spec"];
  if (!spec.is_object()) spec = Json::object();
  if (queue.spec.node_selector.empty()) {
    spec.erase("nodeSelector");
  } else {
    spec["nodeSelector"] = queue.spec.node_selector;
  }
  spec["sharing"] = SharingName(queue.spec.sharing);
  spec["preemption"] = {{"minRuntimeSeconds", queue.spec.preemption.min_runtime_seconds},
                        {"gracePeriodSeconds", queue.spec.preemption.grace_period_seconds}};
  if (queue.spec.preemption.reclaim_wait_seconds > 0) {
    spec["preemption"]["reclaimWaitSeconds"] = queue.spec.preemption.reclaim_wait_seconds;
  }
  if (queue.spec.preemption.reclaim_max_runtime_seconds > 0) {
    spec["preemption"]["reclaimMaxRuntimeSeconds"] =
        queue.spec.preemption.reclaim_max_runtime_seconds;
    spec["preemption"]["immediateGuaranteePercent"] =
        queue.spec.preemption.immediate_guarantee_percent;
  }
  if (queue.spec.idle) {
    spec["idle"] = {{"utilizationBelowPercent", queue.spec.idle->utilization_below_percent},
                    {"forSeconds", queue.spec.idle->for_seconds},
                    {"action", IdleActionName(queue.spec.idle->action)}};
  } else {
    spec.erase("idle");
  }
  SetOrEraseObject(
      json, "status",
      Overlay(json.value("status", Json::object()), StatusToJson(queue.status),
              {"observedGeneration", "capacity", "largestNode", "guaranteed", "allocated",
               "overQuota", "runningJobs", "pendingJobs", "projects", "conditions"}));
  return json;
}

}  // namespace gpupool::api
