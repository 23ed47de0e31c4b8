#include "gpupool/kube/client.h"

#include <stdexcept>

#include "gpupool/json/dump.h"
#include "gpupool/json/parse.h"
#include "gpupool/kube/errors.h"

namespace gpupool::kube {
namespace {

std::string MetaString(const Json& object, const char* key) {
  if (!object.is_object()) return "";
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "";
  auto value = meta->find(key);
  return value != meta->end() && value->is_string() ? value->get<std::string>() : "";
}

const char* PatchContentType(PatchType type) {
  switch (type) {
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kJson:
      return "application/json-patch+json";
    case PatchType::kStrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::kApply:
      return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

std::string WriteQuery(const WriteOptions& options) {
  return QueryString(
      {{"fieldManager", options.field_manager}, {"dryRun", options.dry_run ? "All" : ""}});
}

Json ParseBody(const HttpResponse& response, const std::string& context) {
  if (response.body.empty()) return Json::object();
  Json parsed = json::ParseJson(response.body);
  if (parsed.is_discarded())
    throw ApiError(Reason::kDecode, response.status, context + ": response is not JSON");
  return parsed;
}

std::string RequireName(const Json& object, const Resource& resource) {
  std::string name = NameOf(object);
  if (name.empty())
    throw std::invalid_argument(resource.resource + ": object has no metadata.name");
  return name;
}

}  // namespace

std::string NameOf(const Json& object) { return MetaString(object, "name"); }
std::string NamespaceOf(const Json& object) { return MetaString(object, "namespace"); }
std::string ResourceVersionOf(const Json& object) { return MetaString(object, "resourceVersion"); }

Json DeleteOptions::ToJson() const {
  Json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (propagation_policy) body["propagationPolicy"] = *propagation_policy;
  if (grace_period_seconds) body["gracePeriodSeconds"] = *grace_period_seconds;
  if (precondition_uid) body["preconditions"]["uid"] = *precondition_uid;
  if (precondition_resource_version)
    body["preconditions"]["resourceVersion"] = *precondition_resource_version;
  if (dry_run) body["dryRun"] = Json::array({"All"});
  return body;
}

Client::Client(RestConfig config, TransportOptions options)
    : transport_(std::make_shared<Transport>(std::move(config), std::move(options))) {}

Client::Client(std::shared_ptr<Transport> transport) : transport_(std::move(transport)) {}

Json Client::Request(const std::string& method, const std::string& path, const Json* body,
                     const std::string& content_type, RepeatSafety repeat) {
  HttpRequest request{method, path, body ? json::Dump(*body) : "", content_type, repeat};
  return ParseBody(transport_->Send(request), method + " " + path);
}

void Client::RequestIgnoringAnswer(const std::string& method, const std::string& path,
                                   const Json& body, const std::string& content_type,
                                   RepeatSafety repeat) {
  transport_->Send({method, path, json::Dump(body), content_type, repeat});
}

Json Client::Get(const Resource& resource, const std::string& ns, const std::string& name) {
  if (name.empty())
    throw std::invalid_argument("get " + resource.resource + ": a name is required");
  return Request("GET", resource.Path(ns, name));
}

ListPage Client::List(const Resource& resource, const std::string& ns, const ListOptions& options) {
  std::string query =
      QueryString({{"labelSelector", options.label_selector},
                   {"fieldSelector", options.field_selector},
                   {"limit", options.limit > 0 ? std::to_string(options.limit) : ""},
                   {"continue", options.continue_token},
                   {"resourceVersion", options.resource_version},
                   {"resourceVersionMatch", options.resource_version_match}});
  Json list = Request("GET", resource.Path(ns) + query);
  ListPage page;
  if (list.contains("items") && list["items"].is_array()) page.items = std::move(list["items"]);
  if (list.contains("metadata") && list["metadata"].is_object()) {
    page.resource_version = list["metadata"].value("resourceVersion", "");
    page.continue_token = list["metadata"].value("continue", "");
  }
  return page;
}

ListPage Client::ListAll(const Resource& resource, const std::string& ns, ListOptions options) {
  ListPage all;
  for (int pages = 0;; ++pages) {
    ListPage page = List(resource, ns, options);
    for (auto& item : page.items) all.items.push_back(std::move(item));
    all.resource_version = page.resource_version;
    if (page.continue_token.empty()) return all;
    if (page.continue_token == options.continue_token || pages > 1'000'000)
      throw ApiError(Reason::kDecode, 200,
                     "list " + resource.resource + ": continue token did not advance");
    options.continue_token = page.continue_token;
    options.resource_version.clear();  // Not allowed together with continue.
    options.resource_version_match.clear();
  }
}

Json Client::Create(const Resource& resource, const std::string& ns, const Json& object,
                    const WriteOptions& options) {
  std::string name = NameOf(object);
  // Without a name the server generates one, so a repeat would create a twin.
  RepeatSafety repeat = name.empty() ? RepeatSafety::kNever : RepeatSafety::kSafe;
  bool identity_named = !options.identity_label.empty() || !options.identity_annotation.empty();
  // Throws before sending anything if the object lacks a named identity key.
  if (identity_named) IsSameCreation(object, object, options);
  try {
    if (!options.ignore_answer) {
      return Request("POST", resource.Path(ns) + WriteQuery(options), &object, "application/json",
                     repeat);
    }
    RequestIgnoringAnswer("POST", resource.Path(ns) + WriteQuery(options), object,
                          "application/json", repeat);
    return Json::object();
  } catch (const ApiError& error) {
    if (!IsAlreadyExists(error) || !error.after_ambiguous_attempt() || !identity_named) throw;
    Json existing = Get(resource, ns, name);
    if (!IsSameCreation(object, existing, options)) throw;
    return existing;
  }
}

void Client::CreateEncoded(const Resource& resource, const std::string& ns, std::string body) {
  transport_->Send(
      {"POST", resource.Path(ns), std::move(body), "application/json", RepeatSafety::kSafe});
}

Json Client::Update(const Resource& resource, const std::string& ns, const Json& object,
                    const WriteOptions& options) {
  return Request("PUT", resource.Path(ns, RequireName(object, resource)) + WriteQuery(options),
                 &object);
}

Json Client::UpdateStatus(const Resource& resource, const std::string& ns, const Json& object,
                          const WriteOptions& options) {
  return Request("PUT",
                 resource.Path(ns, RequireName(object, resource), "status") + WriteQuery(options),
                 &object);
}

Json Client::Patch(const Resource& resource, const std::string& ns, const std::string& name,
                   PatchType type, const Json& patch, const PatchOptions& options) {
  if (type == PatchType::kApply && options.field_manager.empty())
    throw std::invalid_argument("server-side apply of " + resource.resource + " \"" + name +
                                "\": a field manager is required");
  if (type == PatchType::kJson && !patch.is_array())
    throw std::invalid_argument("JSON patch of " + resource.resource + " \"" + name +
                                "\": must be an array of operations");
  std::string query =
      QueryString({{"fieldManager", options.field_manager},
                   {"force", options.force && type == PatchType::kApply ? "true" : ""},
                   {"dryRun", options.dry_run ? "All" : ""}});
  Json guarded = WithPrecondition(type, patch, options.precondition_resource_version);
  // Apply is declarative (applying the same configuration twice is applying
  // it once); a precondition makes a repeat of an applied patch fail instead.
  bool repeatable = type == PatchType::kApply || HasPrecondition(type, guarded);
  if (options.ignore_answer) {
    RequestIgnoringAnswer("PATCH", resource.Path(ns, name, options.subresource) + query, guarded,
                          PatchContentType(type),
                          repeatable ? RepeatSafety::kSafe : RepeatSafety::kNever);
    return Json::object();
  }
  return Request("PATCH", resource.Path(ns, name, options.subresource) + query, &guarded,
                 PatchContentType(type), repeatable ? RepeatSafety::kSafe : RepeatSafety::kNever);
}

Json Client::Apply(const Resource& resource, const std::string& ns, const Json& object,
                   const std::string& field_manager, bool force) {
  // JSON is YAML, so the apply body can be sent as JSON.
  return Patch(resource, ns, RequireName(object, resource), PatchType::kApply, object,
               {field_manager, force, "", false, ""});
}

Json Client::Delete(const Resource& resource, const std::string& ns, const std::string& name,
                    const DeleteOptions& options) {
  Json body = options.ToJson();
  bool guarded = options.precondition_uid || options.precondition_resource_version;
  return Request("DELETE", resource.Path(ns, name), &body, "application/json",
                 guarded ? RepeatSafety::kSafe : RepeatSafety::kNever);
}

void Client::Evict(const std::string& ns, const std::string& pod, const DeleteOptions& options) {
  Json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", pod}, {"namespace", ns}}},
                   {"deleteOptions", options.ToJson()}};
  Request("POST", resources::kPods.Path(ns, pod, "eviction"), &eviction, "application/json",
          RepeatSafety::kSafe);
}

void Client::Bind(const std::string& ns, const std::string& pod, const std::string& node) {
  Json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", pod}, {"namespace", ns}}},
                  {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  Request("POST", resources::kPods.Path(ns, pod, "binding"), &binding, "application/json",
          RepeatSafety::kSafe);
}

bool Client::Serves(const Resource& resource) {
  std::string path = resource.group.empty() ? "/api/" + resource.version
                                            : "/apis/" + resource.group + "/" + resource.version;
  try {
    Json list = Request("GET", path);
    if (!list.contains("resources") || !list["resources"].is_array()) return false;
    for (const auto& entry : list["resources"])
      if (entry.is_object() && entry.value("name", "") == resource.resource) return true;
    return false;
  } catch (const ApiError& error) {
    if (IsNotFound(error)) return false;
    throw;
  }
}

}  // namespace gpupool::kube
