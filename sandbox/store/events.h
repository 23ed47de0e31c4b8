// Events live in one storage, served by two APIs: core `v1` Events and
// `events.k8s.io/v1` Events, as on a real server. Objects are stored in the
// core form and converted at the edges (field renames only); validation
// follows the API the request came through.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gpupool/json/field_error.h"
#include "sandbox/rules/resource_type.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

bool IsCoreEvent(const ResourceType& resource);
// events.k8s.io Events: a view of the core Events' storage.
bool IsEventsApiEvent(const ResourceType& resource);

// events.k8s.io/v1 <-> core v1 (note <-> message, regarding <-> involvedObject, ...).
Json EventToCore(Json event);
Json EventFromCore(Json event);
// The stored (core) JSON as `resource` presents it.
std::string PresentStored(const ResourceType& resource, const std::string& stored_json);
Json PresentObject(const ResourceType& resource, Json stored);

// Core field paths and the events.k8s.io names field selectors may use for them.
std::vector<std::pair<std::string, std::string>> EventFieldAliases();

// Validation of a core-form Event written through the core API or, when
// `events_api`, through events.k8s.io: stricter on create, and on an update
// (`old` the stored Event; null for a create) refusing what it may not change.
json::FieldErrors ValidateEvent(const Json& event, bool events_api, const Json* old);

}  // namespace gpupool::sandbox
