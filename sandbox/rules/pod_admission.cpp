#include "sandbox/rules/pod_admission.h"

#include <optional>

#include "gpupool/json/reader.h"
#include "sandbox/api_error.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

const char kPriorityClasses[] = "scheduling.k8s.io/priorityclasses";

// A value as a message shows it: strings bare, anything else as JSON.
std::string MessageText(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// The first PriorityClass marked globalDefault, by name. Only classes whose
// stored form mentions the marker are parsed: a pod create reads no other.
ObjectPtr DefaultPriorityClass(const Store& store) {
  for (const auto& [key, stored] : store.Objects(kPriorityClasses)) {
    if (stored->json.find("\"globalDefault\":true") == std::string::npos) continue;
    if (stored->Parsed().value("globalDefault", false)) return stored;
  }
  return nullptr;
}

// Why a pod is refused that sends `field` with a value other than the one its
// class gives (`what` names the field as the real server's message does).
std::optional<std::string> OtherThanComputed(const Json& spec, const char* field, const char* what,
                                             const Json& computed) {
  if (!spec.contains(field) || spec[field] == computed) return std::nullopt;
  return std::string(what) + " (" + MessageText(spec[field]) +
         ") must not be provided in pod spec; priority admission controller computed " +
         MessageText(computed) + " from the given PriorityClass name";
}

// The Priority plugin: the fields from the named PriorityClass, or from the
// global default class when none is named, or 0 and PreemptLowerPriority
// when there is no default class. A pod may send either field only with the
// value the class gives. Returns why the pod is refused, if it is.
std::optional<std::string> ResolvePriority(Json& spec, const PodAdmissionInputs& inputs) {
  const std::string name = spec.value("priorityClassName", "");
  const bool chosen = !inputs.priority_class_name.empty();
  if (!chosen && !name.empty()) return "no PriorityClass with name " + name + " was found";
  const Json priority = inputs.priority_class.value("value", 0);
  const Json policy = inputs.priority_class.value("preemptionPolicy", "PreemptLowerPriority");
  auto refused = OtherThanComputed(spec, "priority", "the integer value of priority", priority);
  if (!refused) {
    refused =
        OtherThanComputed(spec, "preemptionPolicy", "the string value of PreemptionPolicy", policy);
  }
  if (refused) return refused;
  if (chosen) spec["priorityClassName"] = inputs.priority_class_name;
  spec["priority"] = priority;
  spec["preemptionPolicy"] = policy;
  return std::nullopt;
}

// The ServiceAccount plugin: a pod runs as the ServiceAccount it names,
// "default" when it names none, and that account must exist.
std::optional<std::string> ResolveServiceAccount(Json& spec, const Json& metadata,
                                                 const PodAdmissionInputs& inputs) {
  if (!inputs.service_account_found) {
    return "error looking up service account " + metadata.value("namespace", "") + "/" +
           inputs.service_account + ": serviceaccount \"" + inputs.service_account + "\" not found";
  }
  spec["serviceAccountName"] = inputs.service_account;
  return std::nullopt;
}

}  // namespace

PodAdmissionInputs PodAdmission::Read(const Store& store, const std::string& ns, const Json& pod) {
  PodAdmissionInputs inputs;
  const Json* spec = json::Member(&pod, "spec");
  const Json* class_name = json::Member(spec, "priorityClassName");
  const std::string name =
      class_name && class_name->is_string() ? class_name->get<std::string>() : "";
  const auto chosen =
      name.empty() ? DefaultPriorityClass(store) : store.Get(kPriorityClasses, name);
  inputs.priority_class_name = chosen ? chosen->name : "";
  if (chosen) inputs.priority_class = ParsedClass(chosen);
  const Json* account = json::Member(spec, "serviceAccountName");
  inputs.service_account = account && account->is_string() && !account->get<std::string>().empty()
                               ? account->get<std::string>()
                               : "default";
  inputs.service_account_found =
      store.Get("/serviceaccounts", ObjectKey(ns, inputs.service_account)) != nullptr;
  return inputs;
}

void PodAdmission::Admit(Json& pod, const PodAdmissionInputs& inputs) {
  if (!pod.contains("spec") || !pod["spec"].is_object()) return;
  auto& spec = pod["spec"];
  const auto& metadata = pod["metadata"];
  auto refused = ResolvePriority(spec, inputs);
  if (!refused) refused = ResolveServiceAccount(spec, metadata, inputs);
  if (refused) throw Forbidden("pods", metadata.value("name", ""), *refused);
}

const Json& PodAdmission::ParsedClass(const ObjectPtr& stored) {
  if (stored != parsed_class_) {
    parsed_class_json_ = stored->Parsed();
    parsed_class_ = stored;
  }
  return parsed_class_json_;
}

}  // namespace gpupool::sandbox
