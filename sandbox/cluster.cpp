#include "sandbox/cluster.h"

#include <algorithm>

#include "sandbox/api_error.h"
#include "sandbox/rules/kind_rules.h"
#include "sandbox/rules/known_fields.h"
#include "sandbox/store/encoding.h"
#include "sandbox/store/events.h"
#include "sandbox/store/managed_fields.h"
#include "sandbox/store/object_meta.h"

namespace gpupool::sandbox {
namespace {

std::string ContinueToken(uint64_t rv, const std::string& last_key) {
  return Base64Encode(Json{{"rv", rv}, {"start", last_key}}.dump());
}

// Metadata the client may not change on update.
void PreserveMetadata(const Json& old, Json& object) {
  auto& metadata = object["metadata"];
  const auto& old_metadata = old["metadata"];
  for (const char* field : {"uid", "creationTimestamp", "deletionTimestamp",
                            "deletionGracePeriodSeconds", "generation", "namespace"}) {
    if (old_metadata.contains(field)) {
      metadata[field] = old_metadata[field];
    } else {
      metadata.erase(field);
    }
  }
}

// What a generation counts changes of: everything but metadata, and status
// too when it is a subresource. A custom resource without a status
// subresource bumps its generation on status changes, as on a real server.
bool SpecChanged(const Json& old, const Json& object, bool status_counts) {
  const auto ignored = [&](const std::string& key) {
    return key == "metadata" || key == "kind" || key == "apiVersion" ||
           (key == "status" && !status_counts);
  };
  for (const auto& [key, value] : object.items()) {
    if (ignored(key)) continue;
    if (!old.contains(key) || old[key] != value) return true;
  }
  for (const auto& [key, value] : old.items()) {
    if (!ignored(key) && !object.contains(key)) return true;
  }
  return false;
}

// An apply through /status keeps the managedFields it computed.
void CarryManagedFields(const Json& from, Json& to) {
  if (from.contains("managedFields")) {
    to["managedFields"] = from["managedFields"];
  } else {
    to.erase("managedFields");
  }
}

// Equal objects but for their resourceVersion members (keys are in order).
bool SameMetadataIgnoringVersion(const Json& old, const Json& object) {
  const auto skip = [](const Json& map, Json::const_iterator at) {
    while (at != map.end() && at.key() == "resourceVersion") ++at;
    return at;
  };
  auto mine = skip(old, old.begin());
  auto theirs = skip(object, object.begin());
  while (mine != old.end() && theirs != object.end()) {
    if (mine.key() != theirs.key() || *mine != *theirs) return false;
    mine = skip(old, std::next(mine));
    theirs = skip(object, std::next(theirs));
  }
  return mine == old.end() && theirs == object.end();
}

// A write through /status changes status only: every other member becomes
// the old object's. Members sent as they were are kept, not copied again
// (most often all of them: comparing costs less than copying).
void KeepAllButStatus(const Json& old, Json& object) {
  for (auto it = object.begin(); it != object.end();) {
    it = it.key() != "status" && !old.contains(it.key()) ? object.erase(it) : std::next(it);
  }
  for (const auto& [key, value] : old.items()) {
    if (key == "status") continue;
    const auto sent = object.find(key);
    if (sent == object.end() || *sent != value) object[key] = value;
  }
}

// Most kinds are named by DNS-1123 subdomains; a few by labels (kind_rules.h).
NameSyntax NameSyntaxOf(const ResourceType& resource) {
  const KindRules* rules = RulesFor(resource);
  return rules ? rules->name_syntax : NameSyntax::kSubdomain;
}

// Built-in kinds with a spec whose objects the real server gives no generation.
bool SpecWithoutGeneration(const ResourceType& resource) {
  const KindRules* rules = RulesFor(resource);
  return rules && rules->without_generation;
}

// Compares in place: copying both objects cost more than the comparison.
bool SameIgnoringVersion(const Json& old, const Json& object) {
  if (!old.is_object() || !object.is_object() || old.size() != object.size()) return old == object;
  for (auto mine = old.begin(), theirs = object.begin(); mine != old.end(); ++mine, ++theirs) {
    if (mine.key() != theirs.key()) return false;
    if (mine.key() != "metadata" || !mine->is_object() || !theirs->is_object()) {
      if (*mine != *theirs) return false;
      continue;
    }
    if (!SameMetadataIgnoringVersion(*mine, *theirs)) return false;
  }
  return true;
}

void CheckTypeMeta(const ResourceType& resource, Json& object) {
  if (!object.is_object()) throw BadRequest("the request body must be a JSON object");
  const std::string kind = object.value("kind", resource.kind);
  const std::string api_version = object.value("apiVersion", resource.ApiVersion());
  if (kind != resource.kind || api_version != resource.ApiVersion()) {
    throw BadRequest("the object has apiVersion \"" + api_version + "\" and kind \"" + kind +
                     "\" but the request is for " + resource.ApiVersion() +
                     ", Kind=" + resource.kind);
  }
  object["kind"] = kind;
  object["apiVersion"] = api_version;
  if (!object.contains("metadata")) object["metadata"] = Json::object();
  if (!object["metadata"].is_object()) throw BadRequest("metadata must be an object");
}

}  // namespace

Cluster::Cluster(const ClusterConfig& config)
    : store_(config.history_window), admission_(resources_) {}

ResourcePtr Cluster::Resource(const std::string& group, const std::string& version,
                              const std::string& plural) const {
  auto resource = resources_.Find(group, version, plural);
  if (!resource) {
    throw ApiError(404, "NotFound", "the server could not find the requested resource",
                   Json{{"group", group}, {"kind", plural}});
  }
  return resource;
}

void Cluster::CheckNamespace(const ResourceType& resource, const std::string& ns) {
  if (!resource.namespaced) return;
  auto namespace_object = store_.Get("/namespaces", ns);
  if (!namespace_object) throw NotFound("namespaces", ns);
  if (namespace_object->json.find("\"deletionTimestamp\"") != std::string::npos) {
    throw Forbidden(
        resource.QualifiedName(), "",
        "unable to create new content in namespace " + ns + " because it is being terminated");
  }
}

Json Cluster::Create(const ResourceType& requested, const std::string& ns, Json object,
                     WriteOptions& options) {
  CheckTypeMeta(requested, object);
  CheckKnownFields(requested, object, options);
  const ResourcePtr core_events = CoreEventsFor(requested, options);
  if (core_events) object = EventToCore(std::move(object));
  const ResourceType& resource = core_events ? *core_events : requested;
  SetCreateNamespace(resource, ns, object["metadata"]);
  CreateInputs inputs;
  {
    auto lock = store_.Lock();
    inputs = ReadCreateInputs(resource, ns, object);
  }
  object = PrepareCreate(resource, std::move(object), inputs, options);
  Json created;
  {
    auto lock = store_.Lock();
    created = FinishCreate(resource, std::move(object), options);
  }
  return core_events ? EventFromCore(std::move(created)) : created;
}

Json Cluster::CreateLocked(const ResourceType& resource, const std::string& ns, Json object,
                           WriteOptions& options) {
  SetCreateNamespace(resource, ns, object["metadata"]);
  const CreateInputs inputs = ReadCreateInputs(resource, ns, object);
  return FinishCreate(resource, PrepareCreate(resource, std::move(object), inputs, options),
                      options);
}

void Cluster::SetCreateNamespace(const ResourceType& resource, const std::string& ns,
                                 Json& metadata) {
  if (!resource.namespaced) {
    metadata.erase("namespace");
    return;
  }
  // An empty namespace is an unset one (protobuf bodies always carry the
  // field): the request's namespace fills it, as a real server does.
  const std::string body_ns = metadata.value("namespace", "");
  if (!body_ns.empty() && body_ns != ns) {
    throw BadRequest(
        "the namespace of the provided object does not match the namespace "
        "sent on the request");
  }
  metadata["namespace"] = ns;
}

Cluster::CreateInputs Cluster::ReadCreateInputs(const ResourceType& resource, const std::string& ns,
                                                const Json& object) {
  CheckNamespace(resource, ns);
  CreateInputs inputs;
  inputs.webhooks = ReadWebhookInputs(resource, ns, object);
  if (resource.group.empty() && resource.kind == "Pod") {
    inputs.pod = pod_admission_.Read(store_, ns, object);
  }
  return inputs;
}

Json Cluster::PrepareCreate(const ResourceType& resource, Json object, const CreateInputs& inputs,
                            WriteOptions& options) {
  // The real server's mutating admission (the ServiceAccount and Priority
  // plugins, then webhooks) sees the object before its name is generated and
  // its metadata checked and filled (uid, creationTimestamp).
  if (resource.group.empty() && resource.kind == "Pod") PodAdmission::Admit(object, inputs.pod);
  AdmitByWebhooks(resource, inputs.webhooks.get(), Json(), "", options, object);
  FillCreateMetadata(object["metadata"], QualifiedKind(resource), NameSyntaxOf(resource));
  if ((object.contains("spec") && !SpecWithoutGeneration(resource)) || resource.IsCustom())
    object["metadata"]["generation"] = 1;
  if (resource.status_subresource && resource.IsCustom()) object.erase("status");
  admission_.OnCreate(resource, object, options);
  if (!options.applied) TrackUpdate(resource, nullptr, object, options.field_manager, "");
  return object;
}

ObjectPtr Cluster::StoredOrNotFound(const ResourceType& resource, const std::string& ns,
                                    const std::string& name) {
  auto stored = store_.Get(StorageKey(resource), ObjectKey(resource.namespaced ? ns : "", name));
  if (!stored) throw NotFound(resource.QualifiedName(), name);
  return stored;
}

Json Cluster::ParseStored(const ResourceType& resource, const std::string& ns,
                          const std::string& name) {
  return StoredOrNotFound(resource, ns, name)->Parsed();
}

// The ServiceAccount controller's part: every namespace has the account
// "default" (made with the namespace here, so no pod races it).
void Cluster::CreateDefaultServiceAccount(const std::string& ns) {
  WriteOptions options;
  options.field_manager = "kube-controller-manager";
  const Json account = {
      {"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "default"}}}};
  CreateLocked(*Resource("", "v1", "serviceaccounts"), ns, account, options);
}

ObjectPtr Cluster::GetStored(const ResourceType& resource, const std::string& ns,
                             const std::string& name) {
  auto lock = store_.Lock();
  auto stored = store_.Get(StorageKey(resource), ObjectKey(resource.namespaced ? ns : "", name));
  if (!stored) throw NotFound(resource.QualifiedName(), name);
  return stored;
}

Json Cluster::Get(const ResourceType& resource, const std::string& ns, const std::string& name) {
  return PresentObject(resource, GetStored(resource, ns, name)->Parsed());
}

ResourcePtr Cluster::CoreEvents() const { return Resource("", "v1", "events"); }

ResourcePtr Cluster::CoreEventsFor(const ResourceType& resource, WriteOptions& options) const {
  if (!IsEventsApiEvent(resource)) return nullptr;
  options.via_events_api = true;
  return CoreEvents();
}

ListResult Cluster::List(const ResourceType& resource, const std::string& ns,
                         const ListOptions& options) {
  const auto labels = LabelSelector::Parse(options.label_selector);
  const auto fields = FieldSelector::Parse(options.field_selector, resource.selectable_fields);
  auto lock = store_.Lock();
  ListResult result;
  result.rv = store_.CurrentVersion();
  std::string start_after;
  if (!options.continue_token.empty()) {
    auto decoded = Base64Decode(options.continue_token);
    Json token = decoded ? Json::parse(*decoded, nullptr, false) : Json();
    if (!token.is_object() || !token.contains("rv") || !token.contains("start")) {
      throw BadRequest("continue key is not valid: the continue token is malformed");
    }
    result.rv = token["rv"].get<uint64_t>();
    start_after = token["start"].get<std::string>();
    if (result.rv < store_.OldestResumable()) {
      throw Expired(
          "The provided continue parameter is too old to display a consistent list "
          "result. You can start a new list without the continue parameter.");
    }
  }
  const std::string prefix = resource.namespaced && !ns.empty() ? ns + "/" : "";
  bool more = false;
  result.items = store_.ListAt(
      StorageKey(resource), result.rv, start_after, prefix, options.limit,
      [&](const StoredObject& object) {
        return labels.Matches(object.labels) && object.MatchesFields(fields);
      },
      &more);
  if (more && !result.items.empty()) {
    const auto& last = result.items.back();
    result.continue_token = ContinueToken(result.rv, ObjectKey(last->ns, last->name));
  }
  return result;
}

Json Cluster::Update(const ResourceType& requested, const std::string& ns, const std::string& name,
                     Json object, const std::string& subresource, WriteOptions& options) {
  CheckTypeMeta(requested, object);
  CheckKnownFields(requested, object, options);
  const ResourcePtr core_events = CoreEventsFor(requested, options);
  if (core_events) object = EventToCore(std::move(object));
  const ResourceType& resource = core_events ? *core_events : requested;
  const auto& metadata = object["metadata"];
  if (metadata.value("name", name) != name) {
    throw BadRequest("the name of the object (" + metadata.value("name", "") +
                     ") does not match the name on the URL (" + name + ")");
  }
  const std::string body_ns = metadata.value("namespace", "");
  if (resource.namespaced && !body_ns.empty() && body_ns != ns) {
    throw BadRequest(
        "the namespace of the provided object does not match the namespace "
        "sent on the request");
  }
  const std::string wanted_rv = metadata.value("resourceVersion", "");
  ReadUpdateWebhooks(resource, ns, options);
  auto prepare = [&](const ObjectPtr& stored) {
    if (!wanted_rv.empty() && wanted_rv != std::to_string(stored->rv)) {
      throw Conflict(resource.QualifiedName(), name,
                     "the object has been modified; please apply your changes to the latest "
                     "version and try again");
    }
    return PrepareUpdate(resource, stored->Parsed(), object, subresource, options);
  };
  Json updated = WriteFromStored(resource, ns, name, prepare, [&](PreparedUpdate& update) {
    return FinishUpdate(resource, update, options);
  });
  return core_events ? EventFromCore(std::move(updated)) : updated;
}

Json Cluster::Patch(const ResourceType& resource, const std::string& ns, const std::string& name,
                    PatchType type, const std::string& body, const std::string& subresource,
                    WriteOptions& options) {
  if (type == PatchType::kApply)
    return Apply(resource, ns, name, body, subresource, options).object;
  if (type == PatchType::kStrategic && resource.IsCustom())
    throw UnsupportedMediaType(PatchMediaTypes(true));
  const ResourcePtr core_events = CoreEventsFor(resource, options);
  const ResourceType& stored_as = core_events ? *core_events : resource;
  ReadUpdateWebhooks(resource, ns, options);
  auto prepare = [&](const ObjectPtr& stored) {
    WriteOptions tried = options;
    tried.json_patch = type == PatchType::kMerge || type == PatchType::kJson;
    Json old = stored->Parsed();
    // The patch applies to the object as the request's API presents it.
    Json patched = ApplyPatch(type, PresentObject(resource, old), body);
    CheckTypeMeta(resource, patched);
    CheckKnownFields(resource, patched, tried);
    if (patched["metadata"].value("resourceVersion", "") != std::to_string(stored->rv)) {
      throw Conflict(resource.QualifiedName(), name,
                     "the object has been modified; please apply your changes to the latest "
                     "version and try again");
    }
    if (patched["metadata"].value("name", "") != name) {
      throw BadRequest("the patch changes metadata.name, which is immutable");
    }
    if (core_events) patched = EventToCore(std::move(patched));
    return PrepareUpdate(stored_as, std::move(old), std::move(patched), subresource, tried);
  };
  Json patched = WriteFromStored(resource, ns, name, prepare, [&](PreparedUpdate& update) {
    return FinishUpdate(stored_as, update, options);
  });
  return core_events ? EventFromCore(std::move(patched)) : patched;
}

Json Cluster::UpdateLocked(const ResourceType& resource, Json old, Json object,
                           const std::string& subresource, WriteOptions& options) {
  PreparedUpdate update =
      PrepareUpdate(resource, std::move(old), std::move(object), subresource, options);
  return FinishUpdate(resource, update, options);
}

Cluster::PreparedUpdate Cluster::PrepareUpdate(const ResourceType& resource, Json old, Json object,
                                               const std::string& subresource,
                                               WriteOptions options) {
  if (subresource == "status") {
    Json sent_metadata = options.applied ? object["metadata"] : Json();
    KeepAllButStatus(old, object);
    if (options.applied) CarryManagedFields(sent_metadata, object["metadata"]);
  } else if (resource.status_subresource) {
    if (old.contains("status")) {
      object["status"] = old["status"];
    } else {
      object.erase("status");
    }
  }
  PreserveMetadata(old, object);
  auto errors = ValidateMetadataMaps(object["metadata"]);
  for (const auto& more : {ValidateOwnerReferences(object["metadata"]),
                           ValidateFinalizersUpdate(old["metadata"], object["metadata"])}) {
    errors.insert(errors.end(), more.begin(), more.end());
  }
  if (!errors.empty()) {
    throw Invalid(QualifiedKind(resource), old["metadata"].value("name", ""), errors);
  }
  AdmitByWebhooks(resource, options.webhooks.get(), old, subresource, options, object);
  admission_.OnUpdate(resource, old, object, subresource, options);
  const bool status_counts = resource.IsCustom() && !resource.status_subresource;
  if (old["metadata"].contains("generation") && SpecChanged(old, object, status_counts)) {
    object["metadata"]["generation"] = old["metadata"].value("generation", 1) + 1;
  }
  if (!options.applied) TrackUpdate(resource, &old, object, options.field_manager, subresource);
  const bool unchanged = SameIgnoringVersion(old, object);
  return {std::move(old), std::move(object), std::move(options), unchanged};
}

bool Cluster::Mutate(const ResourceType& resource, const std::string& ns, const std::string& name,
                     const std::function<bool(Json&)>& change, const std::string& subresource,
                     const std::string& manager, ObjectPtr* stored) {
  WriteOptions options;
  options.field_manager = manager;
  auto prepare = [&](const ObjectPtr& current) -> std::optional<PreparedUpdate> {
    Json old = current->Parsed();
    Json object = old;
    if (!change(object)) return std::nullopt;
    return PrepareUpdate(resource, std::move(old), std::move(object), subresource, options);
  };
  try {
    WriteFromStored(resource, ns, name, prepare, [&](std::optional<PreparedUpdate>& update) {
      if (update) FinishUpdate(resource, *update, options);
      return true;
    });
  } catch (const ApiError& error) {
    if (error.code != 404) throw;
    auto lock = store_.Lock();
    if (store_.Get(StorageKey(resource), ObjectKey(resource.namespaced ? ns : "", name))) throw;
    return false;  // gone
  }
  if (stored) *stored = options.stored;
  return true;
}

}  // namespace gpupool::sandbox
