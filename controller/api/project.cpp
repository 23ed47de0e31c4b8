#include "gpupool/api/project.h"

#include <set>

#include "rules.h"

namespace gpupool::api {
namespace {

QueueQuota ReadQueueQuota(json::Reader& item) {
  QueueQuota quota;
  quota.queue = item.String("queue", json::Presence::kRequired).value_or("");
  if (item.Has("queue") && quota.queue.empty()) item.Error("queue", "must not be empty");
  quota.gpu =
      ReadNonNegativeQuantity(item, "gpu", json::Presence::kRequired).value_or(json::Quantity{});
  quota.limit = ReadNonNegativeQuantity(item, "limit");
  if (quota.limit && quota.limit->milli < quota.gpu.milli) {
    item.Error("limit", "must be >= gpu");
  }
  auto weight = item.Int32("overQuotaWeight");
  if (weight && *weight < 0) item.Error("overQuotaWeight", "must be >= 0");
  quota.over_quota_weight = weight && *weight >= 0 ? *weight : 1;
  quota.cpu = ReadNonNegativeQuantity(item, "cpu");
  quota.memory = ReadNonNegativeQuantity(item, "memory");
  return quota;
}

std::vector<QueueQuota> ReadQueueQuotas(json::Reader& spec) {
  std::vector<QueueQuota> quotas;
  std::set<std::string> seen;
  spec.ForEachItem("quotas", [&](json::Reader& item) {
    QueueQuota quota = ReadQueueQuota(item);
    if (!quota.queue.empty() && !seen.insert(quota.queue).second) {
      item.Error("queue", "duplicate quota for queue \"" + quota.queue + "\"");
    }
    quotas.push_back(std::move(quota));
  });
  return quotas;
}

ProjectSpec ReadProjectSpec(json::Reader& spec) {
  ProjectSpec result;
  result.namespaces = spec.StringList("namespaces", json::Presence::kRequired);
  if (spec.Has("namespaces") && result.namespaces.empty() && spec.errors().empty()) {
    spec.Error("namespaces", "must list at least one namespace");
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < result.namespaces.size(); ++i) {
    const auto& name = result.namespaces[i];
    auto path = [&] { return json::Child(spec.PathOf("namespaces"), i); };
    if (!IsDnsLabel(name)) {
      spec.errors().push_back(
          {path(), "must be a namespace name (RFC 1123 label), got \"" + name + "\""});
    } else if (!seen.insert(name).second) {
      spec.errors().push_back({path(), "duplicate namespace \"" + name + "\""});
    }
  }
  result.priority = spec.Int32("priority").value_or(0);
  result.quotas = ReadQueueQuotas(spec);
  result.department = spec.String("department").value_or("");
  if (spec.Has("department") && !IsDnsSubdomain(result.department)) {
    spec.Error("department",
               "must be a Department name (RFC 1123 subdomain), got \"" + result.department + "\"");
  }
  return result;
}

std::vector<ProjectQueueUsage> ReadQueueUsage(json::Reader& status) {
  std::vector<ProjectQueueUsage> usage;
  status.ForEachItem("queues", [&](json::Reader& item) {
    ProjectQueueUsage entry;
    entry.queue = item.String("queue", json::Presence::kRequired).value_or("");
    entry.gpu = ReadGpuUsage(item);
    entry.running_jobs = item.Int32("runningJobs").value_or(0);
    entry.pending_jobs = item.Int32("pendingJobs").value_or(0);
    usage.push_back(std::move(entry));
  });
  return usage;
}

ProjectStatus ReadProjectStatus(json::Reader& reader) {
  ProjectStatus status;
  status.observed_generation = reader.Int("observedGeneration").value_or(0);
  status.guaranteed = reader.QuantityField("guaranteed");
  status.allocated = reader.QuantityField("allocated");
  status.over_quota = reader.QuantityField("overQuota");
  status.queues = ReadQueueUsage(reader);
  status.conditions = ReadConditions(reader);
  return status;
}

Json QuotaToJson(const QueueQuota& quota) {
  Json json = {{"queue", quota.queue},
               {"gpu", quota.gpu.ToJson()},
               {"overQuotaWeight", quota.over_quota_weight}};
  if (quota.limit) json["limit"] = quota.limit->ToJson();
  if (quota.cpu) json["cpu"] = quota.cpu->ToJson();
  if (quota.memory) json["memory"] = quota.memory->ToJson();
  return json;
}

Json StatusToJson(const ProjectStatus& status) {
  Json json = Json::object();
  if (status.observed_generation) json["observedGeneration"] = status.observed_generation;
  if (status.guaranteed) json["guaranteed"] = status.guaranteed->ToJson();
  if (status.allocated) json["allocated"] = status.allocated->ToJson();
  if (status.over_quota) json["overQuota"] = status.over_quota->ToJson();
  Json queues = Json::array();
  for (const auto& q : status.queues) {
    Json item = {
        {"queue", q.queue}, {"runningJobs", q.running_jobs}, {"pendingJobs", q.pending_jobs}};
    WriteGpuUsage(q.gpu, item);
    queues.push_back(std::move(item));
  }
  if (!queues.empty()) json["queues"] = queues;
  if (!status.conditions.empty()) json["conditions"] = ConditionsToJson(status.conditions);
  return json;
}

}  // namespace

const QueueQuota* ProjectSpec::QuotaFor(const std::string& queue) const {
  for (const auto& quota : quotas) {
    if (quota.queue == queue) return &quota;
  }
  return nullptr;
}

Project DecodeProject(const Json& object, json::FieldErrors& errors) {
  return DecodeKind<Project>(object, errors, "Project", json::Presence::kRequired, ReadProjectSpec,
                             ReadProjectStatus);
}

Json ToJson(const Project& project) {
  Json json = ObjectJsonBase(project.raw, "Project", project.metadata);
  Json& spec = json["spec"];
  if (!spec.is_object()) spec = Json::object();
  spec["namespaces"] = project.spec.namespaces;
  spec["priority"] = project.spec.priority;
  Json quotas = Json::array();
  for (const auto& quota : project.spec.quotas) quotas.push_back(QuotaToJson(quota));
  spec["quotas"] = quotas;
  if (project.spec.department.empty()) {
    spec.erase("department");
  } else {
    spec["department"] = project.spec.department;
  }
  SetOrEraseObject(json, "status",
                   Overlay(json.value("status", Json::object()), StatusToJson(project.status),
                           {"observedGeneration", "guaranteed", "allocated", "overQuota", "queues",
                            "conditions"}));
  return json;
}

}  // namespace gpupool::api
