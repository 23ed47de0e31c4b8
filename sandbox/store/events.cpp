#include "sandbox/store/events.h"

#include <utility>
#include <vector>

#include "gpupool/json/dump.h"

namespace gpupool::sandbox {
namespace {

// events.k8s.io/v1 field -> core v1 field; every other field has the same name.
const std::vector<std::pair<std::string, std::string>>& Renames() {
  static const std::vector<std::pair<std::string, std::string>> kRenames = {
      {"regarding", "involvedObject"},
      {"note", "message"},
      {"reportingController", "reportingComponent"},
      {"deprecatedSource", "source"},
      {"deprecatedFirstTimestamp", "firstTimestamp"},
      {"deprecatedLastTimestamp", "lastTimestamp"},
      {"deprecatedCount", "count"}};
  return kRenames;
}

void Rename(Json& object, const std::string& from, const std::string& to) {
  if (!object.contains(from)) return;
  object[to] = std::move(object[from]);
  object.erase(from);
}

bool Set(const Json& event, const char* field) {
  if (!event.contains(field)) return false;
  const Json& value = event[field];
  if (value.is_null()) return false;
  if (value.is_string() || value.is_object() || value.is_array()) return !value.empty();
  if (value.is_number()) return value.get<double>() != 0;
  return true;
}

std::string Text(const Json& event, const char* field) {
  return event.contains(field) && event[field].is_string() ? event[field].get<std::string>() : "";
}

void CheckLength(const Json& event, const char* field, size_t limit, json::FieldErrors& errors) {
  if (Text(event, field).size() > limit) {
    errors.push_back(
        {field, "Invalid value: \"\": can have at most " + std::to_string(limit) + " characters"});
  }
}

// The checks every Event passes, whichever API wrote it.
json::FieldErrors LegacyChecks(const Json& event, bool events_api) {
  json::FieldErrors errors;
  const std::string ns = event["metadata"].value("namespace", "");
  const Json involved = event.value("involvedObject", Json::object());
  const std::string involved_ns = involved.is_object() ? involved.value("namespace", "") : "";
  const auto mismatch = [&] {
    errors.push_back({"involvedObject.namespace",
                      "Invalid value: \"" + involved_ns + "\": does not match event.namespace"});
  };
  if (!Set(event, "eventTime")) {
    // Events of cluster-scoped objects live in "default".
    if (involved_ns.empty() ? !ns.empty() && ns != "default" : ns != involved_ns) mismatch();
  } else {
    if (involved_ns.empty() && ns != "default" && ns != "kube-system") mismatch();
    const char* controller = events_api ? "reportingController" : "reportingComponent";
    if (!Set(event, "reportingComponent")) errors.push_back({controller, "Required value"});
    if (!Set(event, "reportingInstance")) errors.push_back({"reportingInstance", "Required value"});
    CheckLength(event, "reportingInstance", 128, errors);
    if (!Set(event, "action")) errors.push_back({"action", "Required value"});
    CheckLength(event, "action", 128, errors);
  }
  CheckLength(event, "reason", 128, errors);
  CheckLength(event, "message", 1024, errors);
  return errors;
}

// An update through events.k8s.io/v1 may change an Event's series and
// metadata, not what it says: each field below that it changes is "field is
// immutable", in the real server's order and under its core names (it checks
// `reason` twice, and calls reportingComponent reportingController).
void AddImmutableFieldErrors(const Json& event, const Json& old, json::FieldErrors& errors) {
  static const std::pair<const char*, const char*> kImmutable[] = {
      {"involvedObject", "involvedObject"},
      {"reason", "reason"},
      {"message", "message"},
      {"source", "source"},
      {"firstTimestamp", "firstTimestamp"},
      {"lastTimestamp", "lastTimestamp"},
      {"count", "count"},
      {"reason", "reason"},
      {"type", "type"},
      {"eventTime", "eventTime"},
      {"action", "action"},
      {"related", "related"},
      {"reportingComponent", "reportingController"},
      {"reportingInstance", "reportingInstance"}};
  for (const auto& [field, path] : kImmutable) {
    const Json now = event.value(field, Json());
    if (now == old.value(field, Json())) continue;
    errors.push_back({path, "Invalid value: " + now.dump() + ": field is immutable"});
  }
}

}  // namespace

bool IsCoreEvent(const ResourceType& resource) {
  return resource.group.empty() && resource.kind == "Event";
}

bool IsEventsApiEvent(const ResourceType& resource) {
  return resource.group == "events.k8s.io" && resource.kind == "Event";
}

Json EventToCore(Json event) {
  if (!event.is_object()) return event;
  for (const auto& [v1, core] : Renames()) Rename(event, v1, core);
  event["apiVersion"] = "v1";
  return event;
}

Json EventFromCore(Json event) {
  if (!event.is_object()) return event;
  for (const auto& [v1, core] : Renames()) Rename(event, core, v1);
  event["apiVersion"] = "events.k8s.io/v1";
  return event;
}

std::string PresentStored(const ResourceType& resource, const std::string& stored_json) {
  if (!IsEventsApiEvent(resource)) return stored_json;
  return json::Dump(EventFromCore(Json::parse(stored_json)));
}

Json PresentObject(const ResourceType& resource, Json stored) {
  return IsEventsApiEvent(resource) ? EventFromCore(std::move(stored)) : stored;
}

std::vector<std::pair<std::string, std::string>> EventFieldAliases() {
  std::vector<std::pair<std::string, std::string>> aliases;
  for (const auto& [v1, core] : Renames()) aliases.emplace_back(core, v1);
  return aliases;
}

json::FieldErrors ValidateEvent(const Json& event, bool events_api, const Json* old) {
  json::FieldErrors errors = LegacyChecks(event, events_api);
  if (!events_api) return errors;
  if (old) {
    AddImmutableFieldErrors(event, *old, errors);
    return errors;
  }
  // events.k8s.io/v1 creates are strict: the new-style fields are required
  // and the deprecated ones must stay unset.
  if (!Set(event, "eventTime")) errors.push_back({"eventTime", "Required value"});
  const std::string type = Text(event, "type");
  if (type != "Normal" && type != "Warning") {
    errors.push_back({"type", "Invalid value: \"\": has invalid value: " + type});
  }
  for (const char* deprecated : {"firstTimestamp", "lastTimestamp", "count"}) {
    if (Set(event, deprecated)) {
      errors.push_back({deprecated, "Invalid value: \"\": needs to be unset"});
    }
  }
  const Json source = event.value("source", Json::object());
  if (source.is_object() && (Set(source, "component") || Set(source, "host"))) {
    errors.push_back({"source", "Invalid value: \"\": needs to be unset"});
  }
  return errors;
}

}  // namespace gpupool::sandbox
