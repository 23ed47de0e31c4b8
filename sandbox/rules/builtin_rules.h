// Checks the real server makes while decoding and validating built-in kinds
// that have no richer rules file of their own: MicroTime fields (Leases,
// Events) and Lease specs; and the defaults of Namespaces, Services and
// PriorityClasses.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "gpupool/json/field_error.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

// RFC 3339 with exactly six fractional digits, as metav1.MicroTime decodes.
bool IsMicroTime(const std::string& text);
// Throws 400 BadRequest, as a decoding error, when a MicroTime field of
// `object` (a `kind`) is malformed. `paths` are dotted paths.
void CheckMicroTimes(const std::string& kind, const Json& object,
                     std::initializer_list<const char*> paths);
// The 1 MiB limit on a ConfigMap's data and binaryData together.
json::FieldErrors ValidateConfigMapSize(const Json& config_map);
// Errors in a Lease's spec (durations and transition counts).
json::FieldErrors ValidateLeaseSpec(const Json& lease);

// A new namespace's finalizer, phase and name label.
void DefaultNamespace(Json& name_space);
// A service gets its type and a cluster IP as the real allocator would give
// one (headless services keep "None"); `allocated_ips` counts those given.
void DefaultService(Json& service, std::atomic<uint32_t>& allocated_ips);
// A PriorityClass preempts lower priorities unless it says otherwise.
void DefaultPreemptionPolicy(Json& priority_class);

}  // namespace gpupool::sandbox
