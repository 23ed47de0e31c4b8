#include "sandbox/http/discovery.h"

#include <algorithm>
#include <functional>

namespace gpupool::sandbox {
namespace {

constexpr char kOpenApiTitle[] = "gpupool sandbox";
constexpr char kOpenApiVersion[] = "v1.32.0";

Json VerbsFor(const ResourceType&) {
  return {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
}

Json SubresourceEntry(const ResourceType& resource, const std::string& sub, const Json& verbs,
                      const std::string& kind, const std::string& group = "",
                      const std::string& version = "") {
  Json entry = {{"name", resource.plural + "/" + sub},
                {"singularName", ""},
                {"namespaced", resource.namespaced},
                {"kind", kind},
                {"verbs", verbs}};
  if (!group.empty()) entry["group"] = group;
  if (!version.empty()) entry["version"] = version;
  return entry;
}

std::string GroupVersionPath(const ResourceType& resource) {
  return resource.group.empty() ? "api/v1" : "apis/" + resource.group + "/" + resource.version;
}

// The schema component name kubectl's explain looks up by its GVK extension.
std::string ComponentName(const ResourceType& resource) {
  std::string group = resource.group.empty() ? "io.k8s.api.core" : resource.group;
  // Reverse the DNS name as the real documents do ("gpupool.dev" -> "dev.gpupool").
  std::string reversed;
  size_t end = group.size();
  while (true) {
    const size_t dot = group.rfind('.', end - 1);
    const size_t start = dot == std::string::npos ? 0 : dot + 1;
    reversed += (reversed.empty() ? "" : ".") + group.substr(start, end - start);
    if (dot == std::string::npos || dot == 0) break;
    end = dot;
  }
  return reversed + "." + resource.version + "." + resource.kind;
}

Json GvkExtension(const ResourceType& resource) {
  return {{"group", resource.group}, {"version", resource.version}, {"kind", resource.kind}};
}

Json Operation(const ResourceType& resource, const std::string& verb, bool with_body) {
  Json operation = {
      {"description", verb + " the specified " + resource.kind},
      {"operationId", verb + resource.kind},
      {"x-kubernetes-action", verb},
      {"x-kubernetes-group-version-kind", GvkExtension(resource)},
      {"parameters",
       Json::array({{{"name", "fieldValidation"},
                     {"in", "query"},
                     {"schema", {{"type", "string"}}},
                     {"description", "Ignore, Warn or Strict handling of unknown fields"}},
                    {{"name", "dryRun"}, {"in", "query"}, {"schema", {{"type", "string"}}}}})},
      {"responses", {{"200", {{"description", "OK"}}}}}};
  if (!with_body) return operation;
  Json content = Json::object();
  const Json schema = {{"$ref", "#/components/schemas/" + ComponentName(resource)}};
  if (verb == "patch") {
    // Strategic merge is not advertised: kubectl then computes it from its
    // compiled-in types for built-ins and uses merge patches for custom resources.
    for (const char* type : {"application/json-patch+json", "application/merge-patch+json"}) {
      content[type] = {{"schema", {{"type", "object"}}}};
    }
  } else {
    content["application/json"] = {{"schema", schema}};
  }
  operation["requestBody"] = {{"content", content}};
  return operation;
}

Json ComponentSchema(const ResourceType& resource) {
  Json schema;
  if (resource.IsCustom()) {
    schema = resource.crd_version.value("schema", Json::object())
                 .value("openAPIV3Schema", Json{{"type", "object"}});
  } else {
    schema = {{"type", "object"},
              {"description", resource.kind + " (served by the gpupool sandbox)"},
              {"x-kubernetes-preserve-unknown-fields", true}};
  }
  if (!schema.contains("properties")) schema["properties"] = Json::object();
  auto& properties = schema["properties"];
  properties["apiVersion"] = {{"type", "string"},
                              {"description",
                               "APIVersion defines the versioned schema of this "
                               "representation of an object."}};
  properties["kind"] = {{"type", "string"},
                        {"description",
                         "Kind is a string value representing the REST resource "
                         "this object represents."}};
  properties["metadata"] = {{"type", "object"},
                            {"description", "Standard object's metadata."},
                            {"x-kubernetes-preserve-unknown-fields", true}};
  schema["x-kubernetes-group-version-kind"] = Json::array({GvkExtension(resource)});
  return schema;
}

void AddPaths(const ResourceType& resource, Json& paths) {
  const std::string base = "/" + GroupVersionPath(resource) +
                           (resource.namespaced ? "/namespaces/{namespace}/" : "/") +
                           resource.plural;
  paths[base] = {{"get", Operation(resource, "list", false)},
                 {"post", Operation(resource, "post", true)}};
  paths[base + "/{name}"] = {{"get", Operation(resource, "get", false)},
                             {"put", Operation(resource, "put", true)},
                             {"patch", Operation(resource, "patch", true)},
                             {"delete", Operation(resource, "delete", false)}};
}

}  // namespace

Json VersionInfo() {
  return {{"major", "1"},
          {"minor", "32"},
          {"gitVersion", "v1.32.0-gpupool-sandbox"},
          {"gitCommit", ""},
          {"gitTreeState", "clean"},
          {"buildDate", "2026-01-01T00:00:00Z"},
          {"goVersion", "none (C++ sandbox)"},
          {"compiler", "gcc"},
          {"platform", "linux/amd64"}};
}

Json CoreApiVersions(const std::string& server_address) {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs",
           Json::array({{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}})}};
}

Json ApiGroup(const ResourceRegistry& registry, const std::string& group) {
  const auto groups = registry.Groups();
  auto it = groups.find(group);
  if (it == groups.end()) return nullptr;
  Json versions = Json::array();
  for (const auto& version : it->second) {
    versions.push_back({{"groupVersion", group + "/" + version}, {"version", version}});
  }
  return {{"kind", "APIGroup"},
          {"apiVersion", "v1"},
          {"name", group},
          {"versions", versions},
          {"preferredVersion", versions[0]}};
}

Json ApiGroupList(const ResourceRegistry& registry) {
  Json groups = Json::array();
  for (const auto& [group, versions] : registry.Groups()) {
    Json entry = ApiGroup(registry, group);
    entry.erase("kind");
    entry.erase("apiVersion");
    groups.push_back(entry);
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

Json ApiResourceList(const ResourceRegistry& registry, const std::string& group,
                     const std::string& version) {
  Json resources = Json::array();
  for (const auto& resource : registry.All()) {
    if (resource->group != group || resource->version != version) continue;
    Json entry = {{"name", resource->plural},
                  {"singularName", resource->singular},
                  {"namespaced", resource->namespaced},
                  {"kind", resource->kind},
                  {"verbs", VerbsFor(*resource)}};
    if (!resource->short_names.empty()) entry["shortNames"] = resource->short_names;
    if (!resource->categories.empty()) entry["categories"] = resource->categories;
    resources.push_back(entry);
    const Json status_verbs = {"get", "patch", "update"};
    if (resource->status_subresource) {
      resources.push_back(SubresourceEntry(*resource, "status", status_verbs, resource->kind));
    }
    if (resource->group.empty() && resource->kind == "Pod") {
      resources.push_back(SubresourceEntry(*resource, "binding", {"create"}, "Binding"));
      resources.push_back(
          SubresourceEntry(*resource, "eviction", {"create"}, "Eviction", "policy", "v1"));
    }
  }
  if (resources.empty()) return nullptr;
  const std::string group_version = group.empty() ? version : group + "/" + version;
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", group_version},
          {"resources", resources}};
}

std::optional<std::string> OpenApiDocument(const ResourceRegistry& registry,
                                           const std::string& group_version_path) {
  Json paths = Json::object();
  Json schemas = Json::object();
  for (const auto& resource : registry.All()) {
    if (GroupVersionPath(*resource) != group_version_path) continue;
    AddPaths(*resource, paths);
    schemas[ComponentName(*resource)] = ComponentSchema(*resource);
  }
  if (paths.empty()) return std::nullopt;
  return Json{{"openapi", "3.0.0"},
              {"info", {{"title", kOpenApiTitle}, {"version", kOpenApiVersion}}},
              {"paths", paths},
              {"components", {{"schemas", schemas}}}}
      .dump();
}

namespace {

// A length-delimited protobuf field (wire type 2); short enough for a one-byte length.
std::string LengthDelimited(int field, const std::string& bytes) {
  return std::string{static_cast<char>(field << 3 | 2), static_cast<char>(bytes.size())} + bytes;
}

}  // namespace

Json OpenApiV2Json() {
  return {{"swagger", "2.0"},
          {"info", {{"title", kOpenApiTitle}, {"version", kOpenApiVersion}}},
          {"paths", Json::object()},
          {"definitions", Json::object()}};
}

// openapi.v2.Document: swagger = 1, info = 2 (title = 1, version = 2),
// paths = 8, definitions = 9.
std::string OpenApiV2Protobuf() {
  const std::string info = LengthDelimited(1, kOpenApiTitle) + LengthDelimited(2, kOpenApiVersion);
  return LengthDelimited(1, "2.0") + LengthDelimited(2, info) + LengthDelimited(8, "") +
         LengthDelimited(9, "");
}

Json OpenApiIndex(const ResourceRegistry& registry) {
  Json paths = Json::object();
  for (const auto& resource : registry.All()) {
    const std::string path = GroupVersionPath(*resource);
    if (paths.contains(path)) continue;
    const auto document = OpenApiDocument(registry, path);
    const size_t hash = std::hash<std::string>{}(document.value_or(""));
    paths[path] = {{"serverRelativeURL", "/openapi/v3/" + path + "?hash=" + std::to_string(hash)}};
  }
  return {{"paths", paths}};
}

}  // namespace gpupool::sandbox
