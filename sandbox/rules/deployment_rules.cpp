#include "sandbox/rules/deployment_rules.h"

#include <string>
#include <vector>

#include "sandbox/api_error.h"
#include "sandbox/rules/pod_rules.h"
#include "sandbox/store/object_meta.h"
#include "sandbox/store/selectors.h"

namespace gpupool::sandbox {
namespace {

const Json kNoMember = Json::object();

const Json& Member(const Json& object, const char* key) { return MemberOr(object, key, kNoMember); }

// A field the decoder reads as a Go type: its path, whether a JSON value fits,
// and the Go type named in the error.
struct TypedField {
  std::vector<const char*> path;
  bool (*fits)(const Json&);
  const char* go_type;
};

bool IsObject(const Json& value) { return value.is_object(); }
bool IsInteger(const Json& value) { return value.is_number_integer(); }
bool IsBoolean(const Json& value) { return value.is_boolean(); }
bool IsString(const Json& value) { return value.is_string(); }
bool IsArray(const Json& value) { return value.is_array(); }
bool IsIntOrString(const Json& value) { return value.is_number_integer() || value.is_string(); }

const std::vector<TypedField>& TypedFields() {
  static const std::vector<TypedField> fields = {
      {{"spec"}, IsObject, "v1.DeploymentSpec"},
      {{"spec", "replicas"}, IsInteger, "int32"},
      {{"spec", "minReadySeconds"}, IsInteger, "int32"},
      {{"spec", "revisionHistoryLimit"}, IsInteger, "int32"},
      {{"spec", "progressDeadlineSeconds"}, IsInteger, "int32"},
      {{"spec", "paused"}, IsBoolean, "bool"},
      {{"spec", "selector"}, IsObject, "v1.LabelSelector"},
      {{"spec", "selector", "matchLabels"}, IsObject, "map[string]string"},
      {{"spec", "selector", "matchExpressions"}, IsArray, "[]v1.LabelSelectorRequirement"},
      {{"spec", "strategy"}, IsObject, "v1.DeploymentStrategy"},
      {{"spec", "strategy", "type"}, IsString, "v1.DeploymentStrategyType"},
      {{"spec", "strategy", "rollingUpdate"}, IsObject, "v1.RollingUpdateDeployment"},
      {{"spec", "strategy", "rollingUpdate", "maxUnavailable"},
       IsIntOrString,
       "intstr.IntOrString"},
      {{"spec", "strategy", "rollingUpdate", "maxSurge"}, IsIntOrString, "intstr.IntOrString"},
      {{"spec", "template"}, IsObject, "v1.PodTemplateSpec"},
      {{"spec", "template", "metadata"}, IsObject, "v1.ObjectMeta"},
      {{"spec", "template", "spec"}, IsObject, "v1.PodSpec"},
      {{"spec", "template", "spec", "containers"}, IsArray, "[]v1.Container"},
      {{"spec", "template", "spec", "restartPolicy"}, IsString, "v1.RestartPolicy"},
  };
  return fields;
}

// A JSON value's type in the words of Go's decoder ("bool", not "boolean").
const char* GoJsonTypeName(const Json& value) {
  if (value.is_string()) return "string";
  if (value.is_boolean()) return "bool";
  if (value.is_number()) return "number";
  if (value.is_array()) return "array";
  return "object";
}

// Set and not null: a null field decodes as a left-out one.
bool Has(const Json& object, const char* key) {
  return object.contains(key) && !object[key].is_null();
}

// A strategy left out, or without its type, is a 25 %/25 % rolling update.
void DefaultStrategy(Json& spec) {
  if (!Has(spec, "strategy")) spec["strategy"] = Json::object();
  Json& strategy = spec["strategy"];
  if (!Has(strategy, "type")) strategy["type"] = "RollingUpdate";
  if (strategy["type"] != "RollingUpdate") return;
  if (!Has(strategy, "rollingUpdate")) strategy["rollingUpdate"] = Json::object();
  Json& rolling = strategy["rollingUpdate"];
  if (!Has(rolling, "maxUnavailable")) rolling["maxUnavailable"] = "25%";
  if (!Has(rolling, "maxSurge")) rolling["maxSurge"] = "25%";
}

void CheckNotNegative(const Json& spec, const char* field, json::FieldErrors& errors) {
  if (spec.contains(field) && spec[field].get<int64_t>() < 0) {
    errors.push_back({std::string("spec.") + field, "Invalid value: " + spec[field].dump() +
                                                        ": must be greater than or equal to 0"});
  }
}

// A percentage ("25%") or a count; a count may not be negative.
bool IsValidIntOrPercent(const Json& value) {
  if (value.is_number_integer()) return value.get<int64_t>() >= 0;
  const std::string text = value.get<std::string>();
  if (text.size() < 2 || text.back() != '%') return false;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  return true;
}

bool IsZeroAmount(const Json& value) { return value == 0 || value == "0%"; }

json::FieldErrors ValidateStrategy(const Json& strategy) {
  json::FieldErrors errors;
  const std::string type = strategy.value("type", "");
  if (type != "Recreate" && type != "RollingUpdate") {
    errors.push_back({"spec.strategy.type", "Unsupported value: \"" + type +
                                                "\": supported values: \"Recreate\", "
                                                "\"RollingUpdate\""});
  }
  if (type == "Recreate" && strategy.contains("rollingUpdate")) {
    errors.push_back({"spec.strategy.rollingUpdate",
                      "Forbidden: may not be specified when strategy `type` is 'Recreate'"});
  }
  if (type != "RollingUpdate" || !strategy.contains("rollingUpdate")) return errors;
  const Json& rolling = strategy["rollingUpdate"];
  for (const char* field : {"maxUnavailable", "maxSurge"}) {
    if (rolling.contains(field) && !IsValidIntOrPercent(rolling[field])) {
      errors.push_back({std::string("spec.strategy.rollingUpdate.") + field,
                        "Invalid value: " + rolling[field].dump() +
                            ": must be a non-negative integer or a percentage"});
    }
  }
  if (IsZeroAmount(Member(rolling, "maxUnavailable")) &&
      IsZeroAmount(Member(rolling, "maxSurge"))) {
    errors.push_back({"spec.strategy.rollingUpdate.maxUnavailable",
                      "Invalid value: " + rolling["maxUnavailable"].dump() +
                          ": may not be 0 when `maxSurge` is 0"});
  }
  return errors;
}

// Each matchExpressions term: a key, a known operator, and values exactly
// when the operator takes them.
json::FieldErrors ValidateExpressions(const Json& selector) {
  json::FieldErrors errors;
  const Json& expressions = selector.value("matchExpressions", Json::array());
  for (size_t i = 0; i < expressions.size(); ++i) {
    const std::string path = json::Child("spec.selector.matchExpressions", i);
    const Json& term = expressions[i];
    const Json& key = Member(term, "key");
    const Json& op = Member(term, "operator");
    const Json& values = term.is_object() ? term.value("values", Json::array()) : Json::array();
    if (!key.is_string() || key.get_ref<const std::string&>().empty()) {
      errors.push_back({path + ".key", "Required value"});
    }
    const bool takes_values = op == "In" || op == "NotIn";
    if (!takes_values && op != "Exists" && op != "DoesNotExist") {
      errors.push_back(
          {path + ".operator", "Invalid value: " + op.dump() + ": not a valid selector operator"});
    } else if (!values.is_array() || takes_values == values.empty()) {
      errors.push_back({path + ".values", takes_values
                                              ? "Required value: must be specified when "
                                                "`operator` is 'In' or 'NotIn'"
                                              : "Forbidden: may not be specified when "
                                                "`operator` is 'Exists' or 'DoesNotExist'"});
    }
  }
  return errors;
}

json::FieldErrors ValidateSelector(const Json& spec) {
  if (!spec.contains("selector")) return {{"spec.selector", "Required value"}};
  const Json& selector = spec["selector"];
  if (auto errors = ValidateExpressions(selector); !errors.empty()) return errors;
  if (Member(selector, "matchLabels").empty() && Member(selector, "matchExpressions").empty()) {
    return {{"spec.selector",
             "Invalid value: " + selector.dump() + ": empty selector is invalid for deployment"}};
  }
  const Json& labels = Member(Member(spec, "template"), "metadata").value("labels", kNoMember);
  if (labels.is_object() && MatchesLabelSelector(selector, labels)) return {};
  return {{"spec.template.metadata.labels",
           "Invalid value: " + labels.dump() + ": `selector` does not match template `labels`"}};
}

json::FieldErrors ValidateTemplate(const Json& spec) {
  const Json& pod_spec = Member(Member(spec, "template"), "spec");
  json::FieldErrors errors = ValidateContainers(pod_spec, "spec.template.spec");
  const std::string restart = pod_spec.value("restartPolicy", "Always");
  if (restart != "Always") {
    errors.push_back({"spec.template.spec.restartPolicy",
                      "Unsupported value: \"" + restart + "\": supported values: \"Always\""});
  }
  return errors;
}

}  // namespace

void CheckDeploymentTypes(const Json& deployment) {
  for (const auto& field : TypedFields()) {
    const Json* value = &deployment;
    std::string path;
    for (const char* key : field.path) {
      value = value->is_object() && value->contains(key) ? &(*value)[key] : nullptr;
      if (!value) break;
      path += (path.empty() ? "" : ".") + std::string(key);
    }
    if (!value || value->is_null() || field.fits(*value)) continue;
    throw BadRequest(
        "Deployment in version \"v1\" cannot be handled as a Deployment: json: "
        "cannot unmarshal " +
        std::string(GoJsonTypeName(*value)) + " into Go struct field " + path + " of type " +
        field.go_type);
  }
}

void DefaultDeployment(Json& deployment) {
  if (!Has(deployment, "spec")) {
    deployment["spec"] = Json::object();
  }
  Json& spec = deployment["spec"];
  if (!Has(spec, "replicas")) spec["replicas"] = 1;
  if (!Has(spec, "revisionHistoryLimit")) spec["revisionHistoryLimit"] = 10;
  if (!Has(spec, "progressDeadlineSeconds")) spec["progressDeadlineSeconds"] = 600;
  DefaultStrategy(spec);
  const auto pod_template = spec.find("template");
  if (pod_template != spec.end() && pod_template->contains("spec")) {
    DefaultPodSpec((*pod_template)["spec"]);
  }
}

json::FieldErrors ValidateDeployment(const Json& deployment, const Json* old) {
  const Json& spec = deployment["spec"];
  json::FieldErrors errors;
  for (const char* field : {"replicas", "minReadySeconds", "revisionHistoryLimit"}) {
    CheckNotNegative(spec, field, errors);
  }
  const int64_t min_ready = spec.value("minReadySeconds", int64_t{0});
  if (spec["progressDeadlineSeconds"].get<int64_t>() <= min_ready) {
    errors.push_back({"spec.progressDeadlineSeconds",
                      "Invalid value: " + spec["progressDeadlineSeconds"].dump() +
                          ": must be greater than minReadySeconds"});
  }
  for (auto* part : {ValidateSelector, ValidateTemplate}) {
    auto more = part(spec);
    errors.insert(errors.end(), more.begin(), more.end());
  }
  auto strategy_errors = ValidateStrategy(spec["strategy"]);
  errors.insert(errors.end(), strategy_errors.begin(), strategy_errors.end());
  if (old && Member(Member(*old, "spec"), "selector") != Member(spec, "selector")) {
    errors.push_back({"spec.selector", "Invalid value: " + Member(spec, "selector").dump() +
                                           ": field is immutable"});
  }
  return errors;
}

}  // namespace gpupool::sandbox
