#include "sandbox/rules/pod_rules.h"

#include <algorithm>
#include <set>

#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

const Json kEmptyObject = Json::object();
const Json kEmptyArray = Json::array();

json::FieldErrors ValidateGateNames(const Json& spec) {
  json::FieldErrors errors;
  const Json& gates = MemberOr(spec, "schedulingGates", kEmptyArray);
  std::set<std::string> names;
  for (size_t i = 0; i < gates.size(); ++i) {
    const std::string name = gates[i].is_object() ? gates[i].value("name", "") : "";
    const std::string path = json::Child("spec.schedulingGates", i) + ".name";
    if (name.empty()) errors.push_back({path, "Required value"});
    if (!names.insert(name).second) errors.push_back({path, "Duplicate value: \"" + name + "\""});
  }
  return errors;
}

std::set<std::string> GateNames(const Json& spec) {
  std::set<std::string> names;
  for (const auto& gate : MemberOr(spec, "schedulingGates", kEmptyArray)) {
    if (gate.is_object()) names.insert(gate.value("name", ""));
  }
  return names;
}

const Json& RequiredTerms(const Json& spec) {
  const Json& affinity =
      MemberOr(MemberOr(spec, "affinity", kEmptyObject), "nodeAffinity", kEmptyObject);
  const Json& required =
      MemberOr(affinity, "requiredDuringSchedulingIgnoredDuringExecution", kEmptyObject);
  return MemberOr(required, "nodeSelectorTerms", kEmptyArray);
}

// While gated, each term may only gain requirements, and the term count stays.
bool AffinityOnlyNarrows(const Json& old_spec, const Json& spec) {
  const Json& old_terms = RequiredTerms(old_spec);
  const Json& terms = RequiredTerms(spec);
  if (old_terms.empty()) return true;
  if (terms.size() != old_terms.size()) return false;
  for (size_t i = 0; i < terms.size(); ++i) {
    for (const char* list : {"matchExpressions", "matchFields"}) {
      const Json& before = MemberOr(old_terms[i], list, kEmptyArray);
      const Json& after = MemberOr(terms[i], list, kEmptyArray);
      for (const auto& requirement : before) {
        if (std::find(after.begin(), after.end(), requirement) == after.end()) return false;
      }
    }
  }
  return true;
}

json::FieldErrors ValidateGatedChanges(const Json& old_spec, const Json& spec) {
  json::FieldErrors errors;
  const Json& old_selector = MemberOr(old_spec, "nodeSelector", kEmptyObject);
  const Json& selector = MemberOr(spec, "nodeSelector", kEmptyObject);
  for (const auto& [key, value] : old_selector.items()) {
    if (!selector.contains(key) || selector[key] != value) {
      errors.push_back({"spec.nodeSelector",
                        "Invalid value: only additions are allowed while the pod is gated "
                        "(key \"" +
                            key + "\" was changed or removed)"});
    }
  }
  if (!AffinityOnlyNarrows(old_spec, spec)) {
    errors.push_back({"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
                      "Invalid value: while the pod is gated, node affinity terms may only "
                      "gain requirements"});
  }
  return errors;
}

// The spec with the fields an update may legitimately change removed.
Json ComparableSpec(Json spec, bool gated) {
  spec.erase("schedulingGates");
  spec.erase("activeDeadlineSeconds");
  spec.erase("tolerations");
  if (gated) {
    spec.erase("nodeSelector");
    if (spec.contains("affinity") && spec["affinity"].is_object()) {
      spec["affinity"].erase("nodeAffinity");
      if (spec["affinity"].empty()) spec.erase("affinity");
    }
  }
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (auto& container : spec[list]) {
      if (container.is_object()) container.erase("image");
    }
  }
  return spec;
}

}  // namespace

void SyncSchedulingGatedCondition(Json& pod) {
  auto& status = pod["status"];
  if (!status.is_object()) status = Json::object();
  auto& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = Json::array();
  const bool gated = !MemberOr(pod["spec"], "schedulingGates", kEmptyArray).empty();
  auto is_gated_condition = [](const Json& condition) {
    return condition.value("type", "") == "PodScheduled" &&
           condition.value("reason", "") == "SchedulingGated";
  };
  const bool has = std::any_of(conditions.begin(), conditions.end(), is_gated_condition);
  if (gated && !has) {
    EraseIf(conditions, [](const Json& c) { return c.value("type", "") == "PodScheduled"; });
    conditions.push_back({{"type", "PodScheduled"},
                          {"status", "False"},
                          {"reason", "SchedulingGated"},
                          {"message", "Scheduling is blocked due to non-empty scheduling gates"},
                          {"lastProbeTime", nullptr},
                          {"lastTransitionTime", NowString()}});
  }
  if (!gated && has) EraseIf(conditions, is_gated_condition);
}

void DefaultPodSpec(Json& spec) {
  if (!spec.is_object()) return;
  if (!spec.contains("schedulerName")) spec["schedulerName"] = "default-scheduler";
  if (!spec.contains("restartPolicy")) spec["restartPolicy"] = "Always";
  if (!spec.contains("terminationGracePeriodSeconds")) spec["terminationGracePeriodSeconds"] = 30;
  if (!spec.contains("dnsPolicy")) spec["dnsPolicy"] = "ClusterFirst";
  if (!spec.contains("containers") || !spec["containers"].is_array()) return;
  for (auto& container : spec["containers"]) {
    if (!container.is_object()) continue;
    if (!container.contains("terminationMessagePolicy")) {
      container["terminationMessagePolicy"] = "File";
    }
    if (!container.contains("imagePullPolicy")) container["imagePullPolicy"] = "IfNotPresent";
  }
}

json::FieldErrors ValidateContainers(const Json& spec, const std::string& spec_path) {
  json::FieldErrors errors;
  const Json& containers = MemberOr(spec, "containers", kEmptyArray);
  if (!containers.is_array() || containers.empty()) {
    errors.push_back({spec_path + ".containers", "Required value"});
    return errors;
  }
  std::set<std::string> names;
  for (size_t i = 0; i < containers.size(); ++i) {
    const std::string path = json::Child(spec_path + ".containers", i);
    const Json& container = containers[i];
    const std::string name = container.is_object() ? container.value("name", "") : "";
    if (name.empty()) errors.push_back({path + ".name", "Required value"});
    if (!names.insert(name).second) {
      errors.push_back({path + ".name", "Duplicate value: \"" + name + "\""});
    }
    if (!container.is_object() || container.value("image", "").empty()) {
      errors.push_back({path + ".image", "Required value"});
    }
  }
  return errors;
}

json::FieldErrors PreparePodCreate(Json& pod) {
  if (!pod.contains("spec") || !pod["spec"].is_object()) {
    return {{"spec", "Required value"}};
  }
  auto& spec = pod["spec"];
  json::FieldErrors errors = ValidateContainers(spec, "spec");
  auto gate_errors = ValidateGateNames(spec);
  errors.insert(errors.end(), gate_errors.begin(), gate_errors.end());
  for (const char* field : {"hostname", "subdomain"}) {
    if (!spec.contains(field) || !spec[field].is_string() || spec[field] == "") continue;
    auto label_errors = ValidateDnsLabel(spec[field], std::string("spec.") + field);
    errors.insert(errors.end(), label_errors.begin(), label_errors.end());
  }
  if (!spec.value("nodeName", "").empty() && !GateNames(spec).empty()) {
    errors.push_back({"spec.nodeName",
                      "Forbidden: cannot be set until all schedulingGates "
                      "have been cleared"});
  }
  if (!errors.empty()) return errors;
  DefaultPodSpec(spec);
  pod["status"] = {{"phase", "Pending"}, {"conditions", Json::array()}};
  SyncSchedulingGatedCondition(pod);
  return errors;
}

json::FieldErrors ValidatePodUpdate(const Json& old, const Json& pod) {
  const Json& old_spec = MemberOr(old, "spec", kEmptyObject);
  const Json& spec = MemberOr(pod, "spec", kEmptyObject);
  json::FieldErrors errors = ValidateGateNames(spec);
  const auto old_gates = GateNames(old_spec);
  for (const auto& gate : GateNames(spec)) {
    if (!old_gates.count(gate)) {
      errors.push_back({"spec.schedulingGates",
                        "Forbidden: only deletion is allowed, but found "
                        "new scheduling gate '" +
                            gate + "'"});
    }
  }
  const bool gated = !old_gates.empty();
  if (gated) {
    auto gated_errors = ValidateGatedChanges(old_spec, spec);
    errors.insert(errors.end(), gated_errors.begin(), gated_errors.end());
  }
  const Json& old_tolerations = MemberOr(old_spec, "tolerations", kEmptyArray);
  const Json& tolerations = MemberOr(spec, "tolerations", kEmptyArray);
  for (const auto& toleration : old_tolerations) {
    if (std::find(tolerations.begin(), tolerations.end(), toleration) == tolerations.end()) {
      errors.push_back({"spec.tolerations",
                        "Forbidden: existing toleration can not be modified "
                        "except its tolerationSeconds"});
      break;
    }
  }
  if (ComparableSpec(old_spec, gated) != ComparableSpec(spec, gated)) {
    errors.push_back({"spec",
                      "Forbidden: pod updates may not change fields other than "
                      "`spec.containers[*].image`,`spec.initContainers[*].image`,"
                      "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions "
                      "to existing tolerations),`spec.schedulingGates` (only deletion), "
                      "and while gated `spec.nodeSelector` (only additions) and "
                      "`spec.affinity.nodeAffinity` (only narrowing)"});
  }
  return errors;
}

}  // namespace gpupool::sandbox
