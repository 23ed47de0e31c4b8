// CustomResourceDefinitions: validation of the definition, its status
// (NamesAccepted, Established), the resources it serves, and validation of
// custom resources against their schema and x-kubernetes-validations rules.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpupool/json/field_error.h"
#include "sandbox/rules/resource_type.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

// A schema keyword whose value has the wrong JSON type: 400, in the words of
// the real server's decoder, before any validation.
void CheckCrdDecodes(const Json& crd);
// Errors in a CRD (names, versions, structural schemas, unsupported CEL).
json::FieldErrors ValidateCrd(const Json& crd);
// Fills status.acceptedNames, conditions and storedVersions.
void EstablishCrd(Json& crd);
// One ResourceType per served version.
std::vector<ResourcePtr> ServedResources(const Json& crd);

struct CustomResourceCheck {
  json::FieldErrors errors;
  std::vector<std::string> pruned;  // paths of unknown fields removed
};
// Defaults, prunes and validates `object` (metadata is left alone). On an
// update, `old` is the stored object: what the update leaves unchanged is not
// validated again (the server's validation ratcheting).
CustomResourceCheck CheckCustomResource(const ResourceType& resource, Json& object,
                                        const Json* old = nullptr);
// The same for a write through the status subresource, whose object is `old`
// but for its status: as the API server's status strategy, only `status` is
// defaulted, pruned and validated, against the schema's `status` property
// (the whole object when the schema has none); validation rules still see the
// whole object.
CustomResourceCheck CheckCustomResourceStatus(const ResourceType& resource, Json& object,
                                              const Json& old);

}  // namespace gpupool::sandbox
