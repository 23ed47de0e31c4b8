#include "sandbox/http/table.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <functional>
#include <initializer_list>

#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

using Cell = std::function<Json(const Json&)>;
struct Column {
  std::string name;
  std::string type;
  std::string format;
  int priority;
  Cell cell;
};

Json Path(const Json& object, const std::string& path) { return EvaluateJsonPath(object, path); }

Json Age(const Json& object) { return HumanAge(object["metadata"].value("creationTimestamp", "")); }

Json PodReady(const Json& pod) {
  const auto statuses =
      pod.value("status", Json::object()).value("containerStatuses", Json::array());
  const size_t total = pod["spec"].value("containers", Json::array()).size();
  size_t ready = 0;
  for (const auto& status : statuses) ready += status.value("ready", false) ? 1 : 0;
  return std::to_string(ready) + "/" + std::to_string(total);
}

Json PodStatus(const Json& pod) {
  const auto status = pod.value("status", Json::object());
  if (pod["metadata"].contains("deletionTimestamp")) return "Terminating";
  for (const auto& condition : status.value("conditions", Json::array())) {
    if (condition.value("reason", "") == "SchedulingGated") return "SchedulingGated";
  }
  if (status.contains("reason")) return status["reason"];
  return status.value("phase", "Pending");
}

Json NodeStatus(const Json& node) {
  std::string ready = "Unknown";
  for (const auto& condition :
       node.value("status", Json::object()).value("conditions", Json::array())) {
    if (condition.value("type", "") == "Ready") {
      ready = condition.value("status", "") == "True" ? "Ready" : "NotReady";
    }
  }
  if (node.value("spec", Json::object()).value("unschedulable", false)) {
    ready += ",SchedulingDisabled";
  }
  return ready;
}

Json ServicePorts(const Json& service) {
  std::string ports;
  for (const auto& port : service.value("spec", Json::object()).value("ports", Json::array())) {
    if (!ports.empty()) ports += ",";
    ports += std::to_string(port.value("port", 0)) + "/" + port.value("protocol", "TCP");
  }
  return ports.empty() ? "<none>" : ports;
}

Json OrNone(const Json& value) { return value.is_null() || value == "" ? Json("<none>") : value; }

// The first of `keys` that holds a non-empty string (core events and
// events.k8s.io ones name the same facts differently).
std::string FirstString(const Json& object, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    const Json value = Path(object, key);
    if (value.is_string() && !value.get_ref<const std::string&>().empty()) return value;
  }
  return "";
}

// The event printer's times: first seen is firstTimestamp (or eventTime), last
// seen lastTimestamp (or the series' last observation, or the first).
Json EventFirstSeen(const Json& event) {
  return HumanAge(FirstString(event, {".firstTimestamp", ".deprecatedFirstTimestamp", ".eventTime",
                                      ".metadata.creationTimestamp"}));
}

Json EventLastSeen(const Json& event) {
  const std::string last = FirstString(
      event, {".series.lastObservedTime", ".lastTimestamp", ".deprecatedLastTimestamp"});
  return last.empty() ? EventFirstSeen(event) : Json(HumanAge(last));
}

// "pod/p": the kind in lower case and the name of the object the event is about.
Json EventObject(const Json& event) {
  const Json ref = event.contains("involvedObject") ? event["involvedObject"]
                                                    : event.value("regarding", Json::object());
  std::string kind = ref.value("kind", "");
  std::transform(kind.begin(), kind.end(), kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::string name = ref.value("name", "");
  return name.empty() ? kind : kind + "/" + name;
}

Json EventSource(const Json& event) {
  const std::string component =
      FirstString(event, {".source.component", ".deprecatedSource.component", ".reportingComponent",
                          ".reportingController"});
  const std::string instance =
      FirstString(event, {".source.host", ".deprecatedSource.host", ".reportingInstance"});
  if (component.empty()) return "";
  return instance.empty() ? component : component + ", " + instance;
}

Json EventCount(const Json& event) {
  for (const char* path : {".series.count", ".count", ".deprecatedCount"}) {
    const Json count = Path(event, path);
    if (count.is_number_integer() && count.get<int64_t>() > 0) return count;
  }
  return 1;
}

std::vector<Column> EventColumns(const Column& name) {
  return {
      {"Last Seen", "string", "", 0, EventLastSeen},
      {"Type", "string", "", 0, [](const Json& o) { return Json(FirstString(o, {".type"})); }},
      {"Reason", "string", "", 0, [](const Json& o) { return Json(FirstString(o, {".reason"})); }},
      {"Object", "string", "", 0, EventObject},
      {"Subobject", "string", "", 1,
       [](const Json& o) {
         return Json(FirstString(o, {".involvedObject.fieldPath", ".regarding.fieldPath"}));
       }},
      {"Source", "string", "", 1, EventSource},
      {"Message", "string", "", 0,
       [](const Json& o) {
         return Json(FirstString(o, {".message", ".note"}));
       }},
      {"First Seen", "string", "", 1, EventFirstSeen},
      {"Count", "integer", "", 1, EventCount},
      {name.name, name.type, name.format, 1, name.cell}};
}

// The names of a binding's subjects of one kind ("ns:name" for ServiceAccounts).
Cell SubjectsOf(const char* kind) {
  return [kind](const Json& binding) {
    std::string names;
    for (const auto& subject : binding.value("subjects", Json::array())) {
      if (subject.value("kind", "") != kind) continue;
      std::string name = subject.value("name", "");
      if (std::string(kind) == "ServiceAccount") name = subject.value("namespace", "") + ":" + name;
      names += (names.empty() ? "" : ", ") + name;
    }
    return Json(names);
  };
}

std::vector<Column> BindingColumns(const Column& name, const Column& age) {
  return {name,
          {"Role", "string", "", 0,
           [](const Json& o) {
             const Json ref = o.value("roleRef", Json::object());
             return Json(ref.value("kind", "") + "/" + ref.value("name", ""));
           }},
          age,
          {"Users", "string", "", 1, SubjectsOf("User")},
          {"Groups", "string", "", 1, SubjectsOf("Group")},
          {"ServiceAccounts", "string", "", 1, SubjectsOf("ServiceAccount")}};
}

std::vector<Column> BuiltinColumns(const ResourceType& resource) {
  const Column name{"Name", "string", "name", 0,
                    [](const Json& o) { return o["metadata"]["name"]; }};
  const Column age{"Age", "string", "", 0, Age};
  const std::string& kind = resource.kind;
  if (kind == "Pod") {
    return {
        name,
        {"Ready", "string", "", 0, PodReady},
        {"Status", "string", "", 0, PodStatus},
        {"Restarts", "string", "", 0, [](const Json&) { return Json("0"); }},
        age,
        {"IP", "string", "", 1, [](const Json& o) { return OrNone(Path(o, ".status.podIP")); }},
        {"Node", "string", "", 1, [](const Json& o) { return OrNone(Path(o, ".spec.nodeName")); }}};
  }
  if (kind == "Node") {
    return {name,
            {"Status", "string", "", 0, NodeStatus},
            {"Roles", "string", "", 0, [](const Json&) { return Json("<none>"); }},
            age,
            {"Version", "string", "", 0,
             [](const Json& o) { return OrNone(Path(o, ".status.nodeInfo.kubeletVersion")); }}};
  }
  if (kind == "Namespace") {
    return {name,
            {"Status", "string", "", 0, [](const Json& o) { return Path(o, ".status.phase"); }},
            age};
  }
  if (kind == "ConfigMap") {
    return {name,
            {"Data", "integer", "", 0,
             [](const Json& o) { return Json(o.value("data", Json::object()).size()); }},
            age};
  }
  if (kind == "Secret") {
    return {name,
            {"Type", "string", "", 0, [](const Json& o) { return Json(o.value("type", "")); }},
            {"Data", "integer", "", 0,
             [](const Json& o) { return Json(o.value("data", Json::object()).size()); }},
            age};
  }
  if (kind == "Service") {
    return {name,
            {"Type", "string", "", 0, [](const Json& o) { return OrNone(Path(o, ".spec.type")); }},
            {"Cluster-IP", "string", "", 0,
             [](const Json& o) { return OrNone(Path(o, ".spec.clusterIP")); }},
            {"Port(s)", "string", "", 0, ServicePorts},
            age};
  }
  if (kind == "Event") return EventColumns(name);
  if (kind == "RoleBinding" || kind == "ClusterRoleBinding") return BindingColumns(name, age);
  if (kind == "ServiceAccount") {
    return {name,
            {"Secrets", "integer", "", 0,
             [](const Json& o) { return Json(o.value("secrets", Json::array()).size()); }},
            age};
  }
  if (kind == "Lease") {
    return {name,
            {"Holder", "string", "", 0,
             [](const Json& o) { return OrNone(Path(o, ".spec.holderIdentity")); }},
            age};
  }
  if (kind == "PriorityClass") {
    return {name,
            {"Value", "integer", "", 0, [](const Json& o) { return Path(o, ".value"); }},
            {"Global-Default", "boolean", "", 0,
             [](const Json& o) { return Json(o.value("globalDefault", false)); }},
            age};
  }
  return {name, {"Created At", "date", "", 0, [](const Json& o) {
                   return o["metadata"].value("creationTimestamp", "");
                 }}};
}

std::vector<Column> CustomColumns(const ResourceType& resource) {
  std::vector<Column> columns = {
      {"Name", "string", "name", 0, [](const Json& o) { return o["metadata"]["name"]; }}};
  const Json printer = resource.crd_version.value("additionalPrinterColumns", Json::array());
  if (printer.empty()) {
    columns.push_back({"Age", "date", "", 0, Age});
    return columns;
  }
  for (const auto& definition : printer) {
    const std::string type = definition.value("type", "string");
    const std::string path = definition.value("jsonPath", "");
    Cell cell = [path, type](const Json& o) {
      Json value = EvaluateJsonPath(o, path);
      if (type == "date" && value.is_string()) return Json(HumanAge(value.get<std::string>()));
      return value;
    };
    columns.push_back({definition.value("name", ""), type, definition.value("format", ""),
                       definition.value("priority", 0), cell});
  }
  return columns;
}

std::vector<Column> ColumnsFor(const ResourceType& resource) {
  return resource.IsCustom() ? CustomColumns(resource) : BuiltinColumns(resource);
}

// One step of a JSONPath: ".name", "[3]" or "[?(@.key=="value")]".
const Json* Step(const Json* node, const std::string& path, size_t& at) {
  if (path[at] == '.') {
    size_t end = path.find_first_of(".[", at + 1);
    if (end == std::string::npos) end = path.size();
    const std::string key = path.substr(at + 1, end - at - 1);
    at = end;
    return node->is_object() && node->contains(key) ? &(*node)[key] : nullptr;
  }
  const size_t close = path.find(']', at);
  if (close == std::string::npos) return nullptr;
  const std::string inside = path.substr(at + 1, close - at - 1);
  at = close + 1;
  if (!node->is_array()) return nullptr;
  if (inside.rfind("?(@.", 0) == 0) {
    const size_t eq = inside.find("==");
    if (eq == std::string::npos) return nullptr;
    const std::string key = inside.substr(4, eq - 4);
    std::string value = inside.substr(eq + 2, inside.size() - eq - 3);
    if (value.size() >= 2 && (value[0] == '"' || value[0] == '\''))
      value = value.substr(1, value.size() - 2);
    for (const auto& item : *node) {
      if (item.is_object() && item.contains(key) && item[key] == value) return &item;
    }
    return nullptr;
  }
  const size_t index = static_cast<size_t>(std::atoi(inside.c_str()));
  return index < node->size() ? &(*node)[index] : nullptr;
}

}  // namespace

Json EvaluateJsonPath(const Json& object, const std::string& path) {
  const Json* node = &object;
  size_t at = 0;
  while (node && at < path.size()) node = Step(node, path, at);
  return node ? *node : Json();
}

std::string HumanAge(const std::string& timestamp) {
  std::chrono::system_clock::time_point then;
  if (!ParseTime(timestamp, &then)) return "<unknown>";
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now() - then)
          .count();
  if (seconds < 120) return std::to_string(std::max<int64_t>(seconds, 0)) + "s";
  if (seconds < 3600 * 2) return std::to_string(seconds / 60) + "m";
  if (seconds < 86400 * 2) return std::to_string(seconds / 3600) + "h";
  return std::to_string(seconds / 86400) + "d";
}

Json TableColumns(const ResourceType& resource) {
  Json columns = Json::array();
  for (const auto& column : ColumnsFor(resource)) {
    columns.push_back({{"name", column.name},
                       {"type", column.type == "date" ? "string" : column.type},
                       {"format", column.format},
                       {"description", column.name},
                       {"priority", column.priority}});
  }
  return columns;
}

Json TableRow(const ResourceType& resource, const Json& object, const std::string& include_object) {
  Json cells = Json::array();
  for (const auto& column : ColumnsFor(resource)) cells.push_back(column.cell(object));
  Json row = {{"cells", cells}};
  if (include_object == "Object") {
    row["object"] = object;
  } else if (include_object != "None") {
    row["object"] = {{"kind", "PartialObjectMetadata"},
                     {"apiVersion", "meta.k8s.io/v1"},
                     {"metadata", object["metadata"]}};
  }
  return row;
}

}  // namespace gpupool::sandbox
