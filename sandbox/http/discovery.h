// Discovery documents (/version, /api, /apis, resource lists) and the
// OpenAPI v3 documents kubectl reads to decide on server-side field
// validation, patch types and `kubectl explain`.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sandbox/rules/resource_type.h"

namespace gpupool::sandbox {

using Json = nlohmann::json;

Json VersionInfo();
Json CoreApiVersions(const std::string& server_address);
Json ApiGroupList(const ResourceRegistry& registry);
// Null when the group is not served.
Json ApiGroup(const ResourceRegistry& registry, const std::string& group);
// Null when the group/version is not served.
Json ApiResourceList(const ResourceRegistry& registry, const std::string& group,
                     const std::string& version);

// The OpenAPI v3 index ("api/v1", "apis/g/v" -> URL with a content hash).
Json OpenApiIndex(const ResourceRegistry& registry);
// The OpenAPI v2 document: its header without paths or definitions, as JSON or
// as gnostic's protobuf (what kubectl asks for). kubectl reads it to validate a
// List on the client; finding no definition, it leaves every item's validation
// to the server (fieldValidation=Strict), as it does for kinds of the v3 documents.
Json OpenApiV2Json();
std::string OpenApiV2Protobuf();
// The document for "api/v1" or "apis/g/v"; nullopt when not served.
std::optional<std::string> OpenApiDocument(const ResourceRegistry& registry,
                                           const std::string& group_version_path);

}  // namespace gpupool::sandbox
