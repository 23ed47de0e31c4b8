#include "gpupool/api/department.h"

#include <set>

#include "rules.h"

namespace gpupool::api {
namespace {

DepartmentQuota ReadDepartmentQuota(json::Reader& item) {
  DepartmentQuota quota;
  quota.queue = item.String("queue", json::Presence::kRequired).value_or("");
  if (item.Has("queue") && quota.queue.empty()) item.Error("queue", "must not be empty");
  quota.gpu =
      ReadNonNegativeQuantity(item, "gpu", json::Presence::kRequired).value_or(json::Quantity{});
  quota.limit = ReadNonNegativeQuantity(item, "limit");
  if (quota.limit && quota.limit->milli < quota.gpu.milli) item.Error("limit", "must be >= gpu");
  auto weight = item.Int32("overQuotaWeight");
  if (weight && *weight < 0) item.Error("overQuotaWeight", "must be >= 0");
  quota.over_quota_weight = weight && *weight >= 0 ? *weight : 1;
  return quota;
}

DepartmentSpec ReadDepartmentSpec(json::Reader& spec) {
  DepartmentSpec result;
  std::set<std::string> seen;
  spec.ForEachItem("quotas", [&](json::Reader& item) {
    DepartmentQuota quota = ReadDepartmentQuota(item);
    if (!quota.queue.empty() && !seen.insert(quota.queue).second) {
      item.Error("queue", "duplicate quota for queue \"" + quota.queue + "\"");
    }
    result.quotas.push_back(std::move(quota));
  });
  return result;
}

DepartmentStatus ReadDepartmentStatus(json::Reader& reader) {
  DepartmentStatus status;
  status.observed_generation = reader.Int("observedGeneration").value_or(0);
  status.guaranteed = reader.QuantityField("guaranteed");
  status.allocated = reader.QuantityField("allocated");
  status.over_quota = reader.QuantityField("overQuota");
  status.projects = reader.StringList("projects");
  reader.ForEachItem("queues", [&](json::Reader& item) {
    DepartmentQueueUsage entry;
    entry.queue = item.String("queue", json::Presence::kRequired).value_or("");
    entry.gpu = ReadGpuUsage(item);
    status.queues.push_back(std::move(entry));
  });
  status.conditions = ReadConditions(reader);
  return status;
}

Json QuotaToJson(const DepartmentQuota& quota) {
  Json json = {{"queue", quota.queue},
               {"gpu", quota.gpu.ToJson()},
               {"overQuotaWeight", quota.over_quota_weight}};
  if (quota.limit) json["limit"] = quota.limit->ToJson();
  return json;
}

Json StatusToJson(const DepartmentStatus& status) {
  Json json = Json::object();
  if (status.observed_generation) json["observedGeneration"] = status.observed_generation;
  if (status.guaranteed) json["guaranteed"] = status.guaranteed->ToJson();
  if (status.allocated) json["allocated"] = status.allocated->ToJson();
  if (status.over_quota) json["overQuota"] = status.over_quota->ToJson();
  if (!status.projects.empty()) json["projects"] = status.projects;
  Json queues = Json::array();
  for (const auto& q : status.queues) {
    Json item = {{"queue", q.queue}};
    WriteGpuUsage(q.gpu, item);
    queues.push_back(std::move(item));
  }
  if (!queues.empty()) json["queues"] = queues;
  if (!status.conditions.empty()) json["conditions"] = ConditionsToJson(status.conditions);
  return json;
}

}  // namespace

Department DecodeDepartment(const Json& object, json::FieldErrors& errors) {
  return DecodeKind<Department>(object, errors, "Department", json::Presence::kOptional,
                                ReadDepartmentSpec, ReadDepartmentStatus);
}

Json ToJson(const Department& department) {
  Json json = ObjectJsonBase(department.raw, "Department", department.metadata);
  Json& spec = json["spec"];
  if (!spec.is_object()) spec = Json::object();
  Json quotas = Json::array();
  for (const auto& quota : department.spec.quotas) quotas.push_back(QuotaToJson(quota));
  spec["quotas"] = quotas;
  SetOrEraseObject(json, "status",
                   Overlay(json.value("status", Json::object()), StatusToJson(department.status),
                           {"observedGeneration", "guaranteed", "allocated", "overQuota",
                            "projects", "queues", "conditions"}));
  return json;
}

}  // namespace gpupool::api
