// A schema's x-kubernetes-validations rules, as the real server treats them:
// compiled and priced when a CRD is written, evaluated on each object after
// schema validation. A rule is compiled once per process.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gpupool/json/field_error.h"
#include "gpupool/openapi/schema_node.h"

namespace gpupool::openapi {

using Json = nlohmann::json;

// Compiles every rule of `schema` (the JSON at `path`) and estimates its
// cost: a rule the server could not compile, or would find too costly alone
// or with the schema's other rules, is an error naming the rule.
json::FieldErrors CheckRulesCompile(const Json& schema, const std::string& path);

// Evaluates the rules of `schema` on `value` (at `path`) and below, adding
// an error for each that fails. A member equal to its counterpart in `old`
// (an update's stored object) is skipped with everything below it: no rule
// here reads oldSelf, and the server ratchets the errors of the others on
// unchanged values.
void EvaluateRules(const SchemaNode& schema, const Json& value, const SchemaPath& path,
                   json::FieldErrors& errors, const Json* old);

}  // namespace gpupool::openapi
