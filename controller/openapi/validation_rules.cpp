#include "gpupool/openapi/validation_rules.h"

#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "gpupool/json/reader.h"
#include "gpupool/openapi/cel.h"
#include "gpupool/openapi/openapi_schema.h"

namespace gpupool::openapi {
namespace {

// Compiled rules are cached by their text: each is compiled once per process.
const cel::Program& CompiledRule(const std::string& rule) {
  static std::mutex mutex;
  static std::map<std::string, cel::Program> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(rule);
  if (it == cache.end()) it = cache.emplace(rule, cel::Program::Compile(rule)).first;
  return it->second;
}

// How many times a rule may run in one object: the product of the item
// bounds (maxItems, maxProperties) of the lists and maps around it; none
// when one of them is unbounded.
using Cardinality = std::optional<std::uint64_t>;

Cardinality Times(Cardinality outer, const Json& schema, const char* bound) {
  const auto limit = schema.find(bound);
  if (!outer || limit == schema.end() || !limit->is_number_integer() ||
      limit->get<std::int64_t>() < 0)
    return std::nullopt;
  const std::uint64_t items = std::max<std::uint64_t>(limit->get<std::uint64_t>(), 1);
  if (*outer > UINT64_MAX / items) return std::nullopt;
  return *outer * items;
}

// Visits every schema node with its path inside the schema and its cardinality.
template <typename Visit>
void WalkSchema(const Json& schema, const std::string& schema_path, Cardinality cardinality,
                Visit&& visit) {
  if (!schema.is_object()) return;
  visit(schema, schema_path, cardinality);
  if (schema.contains("properties") && schema["properties"].is_object()) {
    for (const auto& [name, child] : schema["properties"].items()) {
      WalkSchema(child, schema_path + ".properties." + name, cardinality, visit);
    }
  }
  if (schema.contains("items")) {
    WalkSchema(schema["items"], schema_path + ".items", Times(cardinality, schema, "maxItems"),
               visit);
  }
  if (schema.contains("additionalProperties") && schema["additionalProperties"].is_object()) {
    WalkSchema(schema["additionalProperties"], schema_path + ".additionalProperties",
               Times(cardinality, schema, "maxProperties"), visit);
  }
}

std::string Factor(double factor) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(factor < 10 ? 2 : 1) << factor;
  return text.str();
}

// Why the server would refuse the rule's cost, or "" when it would not.
std::string CostRefusal(const cel::Program& program, const Json& node, Cardinality cardinality) {
  const std::uint64_t once = program.EstimatedCost(node);
  const std::string advice =
      " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where "
      "arrays, maps, and strings are declared)";
  if (!cardinality) {
    return "Forbidden: the sandbox cannot bound this rule's cost: a list or map around it has "
           "no maxItems or maxProperties" +
           advice;
  }
  const double total = static_cast<double>(once) * static_cast<double>(*cardinality);
  if (total <= static_cast<double>(cel::Program::kRuleCostLimit)) return "";
  return "Forbidden: estimated rule cost exceeds budget by factor of " +
         Factor(total / static_cast<double>(cel::Program::kRuleCostLimit)) + "x" + advice;
}

}  // namespace

json::FieldErrors CheckRulesCompile(const Json& schema, const std::string& path) {
  json::FieldErrors errors;
  double crd_cost = 0;
  WalkSchema(schema, path, Cardinality(1),
             [&](const Json& node, const std::string& node_path, Cardinality cardinality) {
               if (!node.contains("x-kubernetes-validations")) return;
               for (size_t i = 0; i < node["x-kubernetes-validations"].size(); ++i) {
                 const Json& rule = node["x-kubernetes-validations"][i];
                 const std::string rule_path =
                     json::Child(node_path + ".x-kubernetes-validations", i) + ".rule";
                 try {
                   const cel::Program& program = CompiledRule(rule.value("rule", ""));
                   const std::string refusal = CostRefusal(program, node, cardinality);
                   if (!refusal.empty()) errors.push_back({rule_path, refusal});
                   if (cardinality)
                     crd_cost += static_cast<double>(program.EstimatedCost(node)) * *cardinality;
                 } catch (const std::invalid_argument& error) {
                   errors.push_back({rule_path, error.what()});
                 }
               }
             });
  if (crd_cost > static_cast<double>(cel::Program::kCrdCostLimit)) {
    errors.push_back(
        {path, "Forbidden: total CRD cost exceeds budget by factor of " +
                   Factor(crd_cost / static_cast<double>(cel::Program::kCrdCostLimit)) +
                   "x (try reducing the cost of the rules)"});
  }
  return errors;
}

void EvaluateRules(const SchemaNode& schema, const Json& value, const SchemaPath& path,
                   json::FieldErrors& errors, const Json* old) {
  if (!schema.is_schema || value.is_null()) return;
  if (old && *old == value) return;
  for (const auto& rule : schema.rules) {
    const std::string text = rule.value("rule", "");
    std::string message;
    try {
      if (CompiledRule(text).Evaluate(value)) continue;
      message = rule.value("message", "failed rule: " + text);
    } catch (const std::exception& error) {
      message = std::string("failed rule: ") + text + ": " + error.what();
    }
    std::string field =
        rule.contains("fieldPath") ? path.str() + rule["fieldPath"].get<std::string>() : path.str();
    if (!field.empty() && field[0] == '.') field.erase(0, 1);  // a rule at the root
    errors.push_back({field, "Invalid value: \"object\": " + message});
  }
  if (value.is_object() && schema.has_properties) {
    for (const auto& [name, child] : schema.properties) {
      const Json* member = json::Member(&value, name);
      if (!member) continue;
      EvaluateRules(child, *member, SchemaPath(path, name), errors, json::Member(old, name));
    }
  }
  if (value.is_array() && schema.items) {
    const ListCorrelation correlation(schema, old);
    for (size_t i = 0; i < value.size(); ++i) {
      EvaluateRules(*schema.items, value[i], SchemaPath(path, i), errors,
                    correlation.Find(value[i]));
    }
  }
}

}  // namespace gpupool::openapi
