// The rules the real API server applies to pods: defaults on create and the
// narrow set of spec changes allowed afterwards (scheduling gates may only be
// removed; while gated, nodeSelector may only gain keys and required node
// affinity only narrow).
#pragma once

#include <nlohmann/json.hpp>

#include "gpupool/json/field_error.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

// Fills defaults and the initial status; returns validation errors.
json::FieldErrors PreparePodCreate(Json& pod);
// Errors in a pod spec's containers (each needs a unique name and an image);
// `spec_path` names the spec ("spec", "spec.template.spec").
json::FieldErrors ValidateContainers(const Json& spec, const std::string& spec_path);
// The defaults of a pod spec, a pod's or a template's: scheduler, restart and
// DNS policies, grace period, and each container's termination message and
// pull policies.
void DefaultPodSpec(Json& spec);
// Errors when `pod` changes `old` in a way the server forbids.
json::FieldErrors ValidatePodUpdate(const Json& old, const Json& pod);
// Keeps the PodScheduled=False/SchedulingGated condition in step with the gates.
void SyncSchedulingGatedCondition(Json& pod);

}  // namespace gpupool::sandbox
