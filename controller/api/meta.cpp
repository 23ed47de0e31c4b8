#include "gpupool/api/meta.h"

namespace gpupool::api {
namespace {

std::vector<OwnerReference> ReadOwnerReferences(json::Reader& meta) {
  std::vector<OwnerReference> refs;
  meta.ForEachItem("ownerReferences", [&](json::Reader& item) {
    OwnerReference ref;
    ref.api_version = item.String("apiVersion", json::Presence::kRequired).value_or("");
    ref.kind = item.String("kind", json::Presence::kRequired).value_or("");
    ref.name = item.String("name", json::Presence::kRequired).value_or("");
    ref.uid = item.String("uid", json::Presence::kRequired).value_or("");
    ref.controller = item.Bool("controller").value_or(false);
    refs.push_back(std::move(ref));
  });
  return refs;
}

Json OwnerReferencesToJson(const std::vector<OwnerReference>& refs) {
  Json list = Json::array();
  for (const auto& ref : refs) {
    Json item = {
        {"apiVersion", ref.api_version}, {"kind", ref.kind}, {"name", ref.name}, {"uid", ref.uid}};
    if (ref.controller) item["controller"] = true;
    list.push_back(std::move(item));
  }
  return list;
}

}  // namespace

ObjectMeta ReadObjectMeta(json::Reader& parent, json::Presence name_presence) {
  ObjectMeta meta;
  const Json* metadata = parent.Object("metadata", name_presence);
  if (!metadata) return meta;
  json::Reader reader(*metadata, parent, "metadata");
  meta.name = reader.String("name", name_presence).value_or("");
  meta.namespace_ = reader.String("namespace").value_or("");
  meta.uid = reader.String("uid").value_or("");
  meta.resource_version = reader.String("resourceVersion").value_or("");
  meta.generation = reader.Int("generation").value_or(0);
  meta.creation_timestamp = reader.String("creationTimestamp").value_or("");
  meta.deletion_timestamp = reader.String("deletionTimestamp");
  meta.labels = reader.StringMap("labels");
  meta.annotations = reader.StringMap("annotations");
  meta.owner_references = ReadOwnerReferences(reader);
  meta.finalizers = reader.StringList("finalizers");
  return meta;
}

void WriteObjectMeta(const ObjectMeta& meta, Json& metadata) {
  if (!metadata.is_object()) metadata = Json::object();
  auto set_string = [&](const char* key, const std::string& value) {
    if (value.empty()) {
      metadata.erase(key);
    } else {
      metadata[key] = value;
    }
  };
  set_string("name", meta.name);
  set_string("namespace", meta.namespace_);
  set_string("uid", meta.uid);
  set_string("resourceVersion", meta.resource_version);
  set_string("creationTimestamp", meta.creation_timestamp);
  SetOrErase(metadata, "deletionTimestamp", meta.deletion_timestamp);
  if (meta.generation != 0) metadata["generation"] = meta.generation;
  auto set_map = [&](const char* key, const std::map<std::string, std::string>& value) {
    if (value.empty()) {
      metadata.erase(key);
    } else {
      metadata[key] = value;
    }
  };
  set_map("labels", meta.labels);
  set_map("annotations", meta.annotations);
  if (meta.owner_references.empty()) {
    metadata.erase("ownerReferences");
  } else {
    metadata["ownerReferences"] = OwnerReferencesToJson(meta.owner_references);
  }
  if (meta.finalizers.empty()) {
    metadata.erase("finalizers");
  } else {
    metadata["finalizers"] = meta.finalizers;
  }
}

std::vector<Condition> ReadConditions(json::Reader& parent) {
  std::vector<Condition> conditions;
  parent.ForEachItem("conditions", [&](json::Reader& item) {
    Condition condition;
    condition.type = item.String("type", json::Presence::kRequired).value_or("");
    condition.status = item.String("status", json::Presence::kRequired).value_or("");
    condition.reason = item.String("reason").value_or("");
    condition.message = item.String("message").value_or("");
    condition.last_transition_time = item.String("lastTransitionTime").value_or("");
    condition.observed_generation = item.Int("observedGeneration").value_or(0);
    if (!condition.status.empty() && condition.status != "True" && condition.status != "False" &&
        condition.status != "Unknown") {
      item.Error("status", "must be one of True, False, Unknown");
    }
    conditions.push_back(std::move(condition));
  });
  return conditions;
}

Json ConditionsToJson(const std::vector<Condition>& conditions) {
  Json list = Json::array();
  for (const auto& c : conditions) {
    Json item = {{"type", c.type}, {"status", c.status}};
    if (!c.reason.empty()) item["reason"] = c.reason;
    if (!c.message.empty()) item["message"] = c.message;
    if (!c.last_transition_time.empty()) item["lastTransitionTime"] = c.last_transition_time;
    if (c.observed_generation != 0) item["observedGeneration"] = c.observed_generation;
    list.push_back(std::move(item));
  }
  return list;
}

const Condition* FindCondition(const std::vector<Condition>& conditions, const std::string& type) {
  for (const auto& condition : conditions) {
    if (condition.type == type) return &condition;
  }
  return nullptr;
}

GpuUsage ReadGpuUsage(json::Reader& item) {
  GpuUsage usage;
  usage.guaranteed = item.QuantityField("guaranteed").value_or(json::Quantity{});
  usage.allocated = item.QuantityField("allocated").value_or(json::Quantity{});
  usage.over_quota = item.QuantityField("overQuota").value_or(json::Quantity{});
  usage.pending = item.QuantityField("pending").value_or(json::Quantity{});
  return usage;
}

void WriteGpuUsage(const GpuUsage& usage, Json& item) {
  item["guaranteed"] = usage.guaranteed.ToJson();
  item["allocated"] = usage.allocated.ToJson();
  item["overQuota"] = usage.over_quota.ToJson();
  item["pending"] = usage.pending.ToJson();
}

Json Overlay(const Json& raw, const Json& typed, std::initializer_list<const char*> known) {
  Json result = raw.is_object() ? raw : Json::object();
  for (const char* key : known) result.erase(key);
  result.update(typed);
  return result;
}

void SetOrEraseObject(Json& object, const char* key, Json value) {
  if (value.empty()) {
    object.erase(key);
  } else {
    object[key] = std::move(value);
  }
}

void ExpectTypeMeta(json::Reader& reader, const std::string& api_version, const std::string& kind) {
  auto got_version = reader.String("apiVersion", json::Presence::kRequired);
  if (got_version && *got_version != api_version) {
    reader.Error("apiVersion", "must be " + api_version + ", got " + *got_version);
  }
  auto got_kind = reader.String("kind", json::Presence::kRequired);
  if (got_kind && *got_kind != kind) reader.Error("kind", "must be " + kind + ", got " + *got_kind);
}

}  // namespace gpupool::api
