// Table responses (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`),
// which kubectl asks for: built-in columns per kind, and for custom
// resources the CRD's additionalPrinterColumns.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sandbox/rules/resource_type.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

// The column definitions of `resource`'s table.
Json TableColumns(const ResourceType& resource);
// One row; `include_object` is "None", "Metadata" (default) or "Object".
Json TableRow(const ResourceType& resource, const Json& object, const std::string& include_object);
// Evaluates a printer-column JSONPath (".a.b", "[0]", "[?(@.k=="v")]"); null when absent.
Json EvaluateJsonPath(const Json& object, const std::string& path);
// "5s", "3m", "2h", "4d" since an RFC 3339 timestamp, as kubectl shows ages.
std::string HumanAge(const std::string& timestamp);

}  // namespace gpupool::sandbox
