// The resource verbs of the front end: one REST path, one Cluster call.
#include <algorithm>

#include "gpupool/json/dump.h"
#include "sandbox/auth/access_review.h"
#include "sandbox/http/http_server.h"
#include "sandbox/http/http_util.h"
#include "sandbox/http/table.h"
#include "sandbox/rules/kind_rules.h"
#include "sandbox/store/events.h"
#include "sandbox/store/managed_fields.h"

namespace gpupool::sandbox {
namespace {

void CheckSubresource(const ResourceType& resource, const ResourcePath& path,
                      const std::string& method) {
  if (path.subresource.empty()) return;
  const bool pod = resource.group.empty() && resource.kind == "Pod";
  const bool known = (path.subresource == "status" && resource.status_subresource) ||
                     (pod && (path.subresource == "binding" || path.subresource == "eviction" ||
                              path.subresource == "log"));
  if (!known) {
    throw ApiError(404, "NotFound",
                   "the server could not find the requested resource (" + resource.plural + "/" +
                       path.subresource + ")");
  }
  if (path.subresource == "log") {
    if (method != "GET") throw MethodNotAllowed(method + " is not supported on pods/log");
    return;
  }
  const bool post = method == "POST";
  if ((path.subresource == "status") == post) {
    throw MethodNotAllowed(method + " is not supported on " + resource.plural + "/" +
                           path.subresource);
  }
}

// The stored form of a write's answer, when the answer is what was stored
// (not an Event converted for events.k8s.io, nor an unchanged object).
const std::string* StoredAnswer(const Json& object, const WriteOptions& options) {
  if (!options.stored || options.via_events_api) return nullptr;
  const auto& metadata = MetadataOf(object);
  const auto version = metadata.find("resourceVersion");
  if (version == metadata.end() || !version->is_string() ||
      version->get_ref<const std::string&>() != std::to_string(options.stored->rv)) {
    return nullptr;
  }
  return &options.stored->json;
}

void WriteObject(httplib::Response& response, int status, const ResourceType& resource,
                 const Json& object, bool table, const std::string& include_object,
                 const std::string* serialized = nullptr) {
  if (!table) return WriteJson(response, status, serialized ? *serialized : json::Dump(object));
  Json body = {{"kind", "Table"},
               {"apiVersion", "meta.k8s.io/v1"},
               {"metadata", {{"resourceVersion", object["metadata"].value("resourceVersion", "")}}},
               {"columnDefinitions", TableColumns(resource)},
               {"rows", Json::array({TableRow(resource, object, include_object)})}};
  WriteJson(response, status, json::Dump(body));
}

// Pods and services answer a DELETE with the object, as their real storage
// does; other kinds removed at once answer with a Status naming what went.
bool ReturnsDeletedObject(const ResourceType& resource) {
  const KindRules* rules = RulesFor(resource);
  return rules && rules->delete_returns_object;
}

Json DeletedStatus(const ResourceType& resource, const Json& object) {
  Json details = {{"name", object["metadata"].value("name", "")},
                  {"kind", resource.plural},  // the real server puts the resource here
                  {"uid", object["metadata"].value("uid", "")}};
  if (!resource.group.empty()) details["group"] = resource.group;
  return SuccessStatus(details);
}

}  // namespace

void HttpServer::HandleResource(const httplib::Request& request, httplib::Response& response,
                                const ResourcePath& path,
                                const std::optional<ServiceAccountName>& account) {
  const auto resource = cluster_.Resource(path.group, path.version, path.plural);
  if (!resource->namespaced && !path.ns.empty()) {
    throw ApiError(404, "NotFound", "the server could not find the requested resource");
  }
  CheckSubresource(*resource, path, request.method);
  const bool table = WantsTable(request);
  const std::string include_object =
      request.has_param("includeObject") ? request.get_param_value("includeObject") : "Metadata";
  const std::string& method = request.method;
  if (resource->namespaced && path.ns.empty() && !(method == "GET" && path.name.empty())) {
    throw ApiError(404, "NotFound",
                   "the server could not find the requested resource "
                   "(a namespaced resource needs /namespaces/{namespace}/)");
  }
  if (method == "GET" && path.name.empty()) {
    if (BoolParam(request, "watch")) return Watch(request, response, resource, path.ns);
    const auto result = cluster_.List(*resource, path.ns, ListOptionsOf(request));
    return WriteJson(
        response, 200,
        table ? TableBody(*resource, result, include_object) : ListBody(*resource, result));
  }
  if (method == "GET" && path.subresource == "log") {
    // Simulated containers write nothing; the log says what the kubelet did.
    const Json pod = cluster_.Get(*resource, path.ns, path.name);
    const Json status = pod.value("status", Json::object());
    std::string log = "sandbox: pod " + path.ns + "/" + path.name + " is simulated; phase " +
                      status.value("phase", "Pending") + "\n";
    response.set_content(log, "text/plain");
    return;
  }
  if (method == "GET") {
    if (table) {
      return WriteObject(response, 200, *resource, cluster_.Get(*resource, path.ns, path.name),
                         true, include_object);
    }
    return WriteJson(
        response, 200,
        PresentStored(*resource, cluster_.GetStored(*resource, path.ns, path.name)->json));
  }
  if (method == "POST" && path.subresource == "binding") {
    return WriteJson(response, 201, cluster_.Bind(path.ns, path.name, DecodeBody(request)).dump());
  }
  if (method == "POST" && path.subresource == "eviction") {
    return WriteJson(response, 201, cluster_.Evict(path.ns, path.name, DecodeBody(request)).dump());
  }
  auto options = WriteOptionsOf(request);
  options.user_info = UserInfoJson(account ? account->Info() : AdminUser());
  Json result;
  int status = 200;
  if (method == "POST") {
    if (!path.name.empty()) throw MethodNotAllowed("POST is not supported on a named object");
    result =
        cluster_.Create(*resource, path.ns, DecodeBody(request, !resource->IsCustom()), options);
    status = 201;
  } else if (method == "PUT") {
    result = cluster_.Update(*resource, path.ns, path.name,
                             DecodeBody(request, !resource->IsCustom()), path.subresource, options);
  } else if (method == "PATCH") {
    const auto type =
        ParsePatchType(request.get_header_value("Content-Type"), resource->IsCustom());
    CheckPatchOptions(request, type);
    if (type == PatchType::kApply) {
      auto applied =
          cluster_.Apply(*resource, path.ns, path.name, request.body, path.subresource, options);
      result = std::move(applied.object);
      status = applied.created ? 201 : 200;
    } else {
      result = cluster_.Patch(*resource, path.ns, path.name, type, request.body, path.subresource,
                              options);
    }
  } else if (method == "DELETE" && !path.name.empty()) {
    result = cluster_.Delete(*resource, path.ns, path.name, DeleteOptionsOf(request));
    if (!ReturnsDeletedObject(*resource) && !result["metadata"].contains("deletionTimestamp")) {
      return WriteJson(response, 200, DeletedStatus(*resource, result).dump());
    }
  } else if (method == "DELETE") {
    const auto delete_options = DeleteOptionsOf(request);
    auto listed = cluster_.List(*resource, path.ns, ListOptionsOf(request));
    for (const auto& item : listed.items) {
      try {
        cluster_.Delete(*resource, item->ns, item->name, delete_options);
      } catch (const ApiError& error) {
        if (error.code != 404) throw;
      }
    }
    return WriteJson(response, 200, ListBody(*resource, listed));
  } else {
    throw MethodNotAllowed(method + " is not supported");
  }
  AddWarnings(response, options.warnings);
  const std::string* serialized = method == "DELETE" ? nullptr : StoredAnswer(result, options);
  WriteObject(response, status, *resource, result, table, include_object, serialized);
}

}  // namespace gpupool::sandbox
